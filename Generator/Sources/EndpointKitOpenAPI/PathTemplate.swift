#if OpenAPI
/// A template with `{name}` placeholders, as a description writes paths (`/things/{thingId}`) and the overlay
/// writes outbox groups (`things/{thingId}`).
enum PathTemplate {
    /// A run of literal text, or the name inside one pair of braces.
    enum Part: Equatable {
        case text(Substring)
        case name(String)
    }

    /// The parts of `template` in order; a `{` with no `}` after it is literal text.
    static func parts(of template: String) -> [Part] {
        var parts: [Part] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            if open > rest.startIndex { parts.append(.text(rest[..<open])) }
            parts.append(.name(String(rest[rest.index(after: open)..<close])))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.text(rest)) }
        return parts
    }
}
#endif
