import Foundation

/// The disk store's file format: a mark, the variants (each a JSON header and a body, after their lengths), and an
/// end mark, so that a file cut short or written by another format is never misread. The `Postgres` trait's cache
/// storage keeps its rows in this format too.
extension DiskCacheStorage {
    /// What one variant keeps besides its body.
    struct Header: Codable {
        var statusCode: Int
        var headers: [[String]]
        var requestDate: Double
        var responseDate: Double
        var secondaryKey: String?
        var bodyLength: Int
    }

    /// `EKC1`, a count, then per variant a header (JSON) and a body, each after its length, then `EKC.`.
    package static func encode(_ entries: [HTTPCache.Entry]) -> Data {
        var data = Data(formatMark)
        func append(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        append(UInt64(entries.count))
        let encoder = JSONEncoder()
        for entry in entries {
            let header = Header(
                statusCode: entry.statusCode,
                headers: entry.headers.map { [$0.name.rawValue, $0.value] },
                requestDate: entry.requestDate.timeIntervalSinceReferenceDate,
                responseDate: entry.responseDate.timeIntervalSinceReferenceDate,
                secondaryKey: entry.secondaryKey,
                bodyLength: entry.body.count
            )
            let encoded = (try? encoder.encode(header)) ?? Data()
            append(UInt64(encoded.count))
            data.append(encoded)
            append(UInt64(entry.body.count))
            data.append(entry.body)
        }
        data.append(contentsOf: endMark)
        return data
    }

    /// The variants in `data`, or `nil` unless it is a whole file of this format.
    package static func decode(_ data: Data) -> [HTTPCache.Entry]? {
        let bytes = [UInt8](data)
        guard bytes.count >= formatMark.count + 8 + endMark.count, Array(bytes.prefix(4)) == formatMark,
            Array(bytes.suffix(4)) == endMark
        else { return nil }
        var offset = 4
        let end = bytes.count - endMark.count
        func number() -> Int? {
            guard end - offset >= 8 else { return nil }
            var value: UInt64 = 0
            for index in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
            offset += 8
            return value <= UInt64(Int.max) ? Int(value) : nil
        }
        func slice(_ length: Int) -> Data? {
            guard length >= 0, end - offset >= length else { return nil }
            defer { offset += length }
            return Data(bytes[offset..<offset + length])
        }
        guard let count = number(), count <= 1024 else { return nil }
        var entries: [HTTPCache.Entry] = []
        let decoder = JSONDecoder()
        for _ in 0..<count {
            guard let headerLength = number(), let headerData = slice(headerLength),
                let header = try? decoder.decode(Header.self, from: headerData),
                let bodyLength = number(), bodyLength == header.bodyLength, let body = slice(bodyLength)
            else { return nil }
            var headers = HTTPHeaders()
            for pair in header.headers where pair.count == 2 { headers.add(pair[1], for: HTTPHeaders.Name(pair[0])) }
            entries.append(
                HTTPCache.Entry(
                    statusCode: header.statusCode,
                    headers: headers,
                    body: body,
                    requestDate: Date(timeIntervalSinceReferenceDate: header.requestDate),
                    responseDate: Date(timeIntervalSinceReferenceDate: header.responseDate),
                    secondaryKey: header.secondaryKey
                )
            )
        }
        return offset == end ? entries : nil
    }
}
