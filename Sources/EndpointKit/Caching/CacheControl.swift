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

    /// `field, field; a="x,y", b` as lowercase names and unquoted values, commas inside quotes kept.
    private static func split(_ value: String) -> [(String, String?)] {
        var parts: [(String, String?)] = []
        var name = ""
        var current = ""
        var hasValue = false
        var quoted = false
        var escaped = false
        func finish() {
            let trimmedName = (hasValue ? name : current).trimmingCharacters(in: .whitespaces).lowercased()
            let directiveValue = hasValue ? current.trimmingCharacters(in: .whitespaces) : nil
            parts.append((trimmedName, directiveValue))
            name = ""
            current = ""
            hasValue = false
        }
        for character in value {
            if quoted {
                if escaped {
                    current.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                } else {
                    current.append(character)
                }
                continue
            }
            switch character {
            case ",": finish()
            case "=" where !hasValue:
                name = current
                current = ""
                hasValue = true
            case "\"" where hasValue && current.trimmingCharacters(in: .whitespaces).isEmpty:
                current = ""
                quoted = true
            default: current.append(character)
            }
        }
        finish()
        return parts.filter { !$0.0.isEmpty }
    }
}
