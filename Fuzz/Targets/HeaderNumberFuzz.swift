import Foundation

/// Numbers a server sends in headers and streams: `Retry-After`, a rate limit's reset, `Content-Range`,
/// `Content-Length` and an event stream's `retry`. No value may crash a conversion; every wait read is within
/// 0…10⁹ s and prints, every range read is ordered, and a length read is the value's digits.
enum HeaderNumberFuzz {
    static func run(_ input: inout FuzzInput) {
        let raw = input.text()
        // Long runs of digits are where conversions overflow; random text rarely makes them, so make them too.
        let digits = String(raw.utf8.map { Character(Unicode.Scalar(UInt8(ascii: "0") + $0 % 10)) })
        for value in [raw, digits, "-" + digits, digits + ".5", "1e" + digits] {
            check(value)
        }
    }

    private static func check(_ value: String) {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        if let wait = RetryPolicy.retryAfter(value, now: now) {
            requireWait(wait, "Retry-After \(value.debugDescription)")
        }
        for format in [RateLimitReset.Format.epochSeconds, .secondsFromNow] {
            let limit = RateLimitReset(format: format)
            var headers = HTTPHeaders()
            headers.add("0", for: "x-ratelimit-remaining")
            headers.add(value, for: "x-ratelimit-reset")
            let response = TransportResponse(statusCode: 429, headers: headers, url: nil, body: ResponseBody())
            if let wait = limit.wait(for: response, now: now) {
                requireWait(wait, "x-ratelimit-reset \(value.debugDescription)")
            }
        }
        for text in ["bytes \(value)", "bytes \(value)/\(value)", "bytes 0-\(value)/\(value)", "bytes \(value)-9/10"] {
            guard let range = ContentRange(text) else { continue }
            if let start = range.start, let end = range.end {
                require(start >= 0 && start <= end, "Content-Range \(text.debugDescription) read as \(range)")
                if let total = range.total {
                    require(end < total, "Content-Range \(text.debugDescription) past its total")
                }
            }
            if let total = range.total { require(total >= 0, "Content-Range \(text.debugDescription): negative total") }
        }
        var lengthHeaders = HTTPHeaders()
        lengthHeaders.add(value, for: .contentLength)
        if let length = lengthHeaders.announcedBodyLength(statusCode: 200, isHead: false) {
            let digits = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            require(
                length >= 0 && digits.utf8.allSatisfy { (48...57).contains($0) } && Int64(digits) == length,
                "Content-Length \(value.debugDescription) read as \(length)"
            )
        }
        var parser = ServerSentEventParser()
        _ = try? parser.take("retry: \(value)")
        _ = try? parser.take("data: x")
        if let retry = (try? parser.take(""))?.retry {
            require(retry >= .zero, "retry: \(value.debugDescription) read as \(retry)")
            _ = ServerSentEvents.ReconnectPolicy().delay(afterServerAsked: retry)
        }
    }

    private static func requireWait(_ wait: Duration, _ what: String) {
        require(wait >= .zero && wait <= Duration.longestServerWait, "\(what) read as a wait of \(wait)")
        require(!wait.readable.isEmpty, "\(what): a wait that does not print")
    }
}
