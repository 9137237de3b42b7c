import Foundation

/// The directives of every `Cache-Control` field of a request or a response (RFC 9111 §5.2), parsed once.
///
/// Names are compared without case; a value may be a token or a quoted string. A directive whose value is not
/// what its definition allows (`max-age=soon`), or that is given twice with different values, makes
/// ``seconds(_:)`` return 0, so that a response with invalid freshness is treated as stale (§4.2.1).
struct CacheControl: Sendable {
    /// Each directive by lowercase name, with its value when it has one.
    private(set) var directives: [String: String?] = [:]
    /// Names given twice with different values.
    private var conflicting: Set<String> = []

    init() {}

    init(_ headers: HTTPHeaders) {
        for value in headers.values(for: .cacheControl) { add(value) }
    }

    /// Adds the directives of one field value.
    mutating func add(_ fieldValue: String) {
        for part in Self.split(fieldValue) {
            let (name, value) = part
            guard !name.isEmpty else { continue }
            if let existing = directives[name], existing != value { conflicting.insert(name) }
            directives[name] = value
        }
    }

    /// Whether `name` is present.
    func has(_ name: String) -> Bool { directives[name] != nil }

    /// The delta-seconds of `name`: `nil` when absent, 0 when its value is missing, invalid or conflicting, and
    /// at most 2³¹ seconds (§1.2.2).
    func seconds(_ name: String) -> Double? {
        guard let entry = directives[name] else { return nil }
        guard !conflicting.contains(name), let value = entry, !value.isEmpty,
            value.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else { return 0 }
        return min(Double(value) ?? .infinity, 2_147_483_648)
    }

    /// `max-stale`: its seconds, or unbounded when it has no value.
    var maxStale: Double? {
        guard let entry = directives["max-stale"] else { return nil }
        return entry == nil ? .infinity : seconds("max-stale")
    }

    /// `field, field; a="x,y", b` as lowercase names and unquoted values, commas inside quotes kept. Read as
    /// bytes: every cache hit parses its stored response's directives.
    private static func split(_ value: String) -> [(String, String?)] {
        var parts: [(String, String?)] = []
        var name: [UInt8] = []
        var current: [UInt8] = []
        var hasValue = false
        var quoted = false
        var escaped = false
        func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self).trimmingSpaces }
        func finish() {
            let directive = text(hasValue ? name : current).lowercased()
            if !directive.isEmpty { parts.append((directive, hasValue ? text(current) : nil)) }
            name = []
            current = []
            hasValue = false
        }
        for byte in value.utf8 {
            if quoted {
                if escaped {
                    current.append(byte)
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    quoted = false
                } else {
                    current.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: ","): finish()
            case UInt8(ascii: "=") where !hasValue:
                name = current
                current = []
                hasValue = true
            case UInt8(ascii: "\"") where hasValue && current.allSatisfy({ $0 == 0x20 || $0 == 0x09 }):
                current = []
                quoted = true
            default: current.append(byte)
            }
        }
        finish()
        return parts
    }
}
