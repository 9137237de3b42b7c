import Foundation

/// `Link` header fields (RFC 8288 §3) read into their targets and parameters.
enum LinkHeader {
    /// One link: its target as written, and its parameters by lowercase name, unquoted.
    struct Link: Equatable {
        var target: String
        var parameters: [String: String]

        /// The relation types of `rel`, lowercased (a `rel` may hold several, separated by spaces).
        var relations: [String] {
            (parameters["rel"] ?? "").lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        }
    }

    /// Every link in every `Link` field of `headers`, in order.
    static func links(in headers: HTTPHeaders) -> [Link] {
        headers.values(for: .link).flatMap(parse)
    }

    /// The target of the first link about `base` (the URL that answered) whose relation types include `relation`,
    /// resolved against `base`, or `nil` when there is none. A link with an `anchor` (RFC 8288 §3.2) other than
    /// `base` is about another resource, and never counts.
    ///
    /// - Throws: ``EndpointError/Kind/decodingFailed``, naming the link, when its target is not a URL.
    static func target(of relation: String, in headers: HTTPHeaders, relativeTo base: URL?) throws(EndpointError)
        -> URL?
    {
        let found = links(in: headers).first { link in
            guard link.relations.contains(relation) else { return false }
            guard let anchor = link.parameters["anchor"] else { return true }
            return URL(string: anchor, relativeTo: base)?.absoluteURL == base?.absoluteURL
        }
        guard let link = found else { return nil }
        // An empty reference is the base itself, less its fragment (RFC 3986 §5.2), which Foundation does not read.
        if link.target.isEmpty, let base { return Self.removingFragment(base) }
        guard let target = URL(string: link.target, relativeTo: base)?.absoluteURL, target.scheme != nil else {
            throw EndpointError(
                .decodingFailed,
                "the Link header's rel=\"\(relation)\" target <\(link.target.prefix(200))> is not a URL",
                codingPath: "Link"
            )
        }
        return target
    }

    /// `url` without its fragment.
    private static func removingFragment(_ url: URL) -> URL {
        guard var components = URLComponents(url: url.absoluteURL, resolvingAgainstBaseURL: false) else { return url }
        components.fragment = nil
        return components.url ?? url
    }

    /// The links of one field value: `<uri>; name=value; name="quoted, value", <uri2>; …`.
    static func parse(_ value: String) -> [Link] {
        var links: [Link] = []
        var characters = Substring(value)
        while true {
            characters = characters.drop { $0 == " " || $0 == "\t" || $0 == "," }
            guard characters.first == "<", let close = characters.firstIndex(of: ">") else { return links }
            var link = Link(
                target: String(characters[characters.index(after: characters.startIndex)..<close]),
                parameters: [:]
            )
            characters = characters[characters.index(after: close)...]
            // Parameters, each after a ";", up to the "," that ends the link (outside quotes).
            while true {
                characters = characters.drop { $0 == " " || $0 == "\t" }
                guard characters.first == ";" else { break }
                characters = characters.dropFirst().drop { $0 == " " || $0 == "\t" }
                let name = characters.prefix { $0 != "=" && $0 != ";" && $0 != "," }
                characters = characters.dropFirst(name.count)
                var parameterValue = ""
                if characters.first == "=" {
                    characters = characters.dropFirst().drop { $0 == " " || $0 == "\t" }
                    if characters.first == "\"" {
                        characters = characters.dropFirst()
                        var escaped = false
                        while let character = characters.first {
                            characters = characters.dropFirst()
                            if escaped {
                                parameterValue.append(character)
                                escaped = false
                            } else if character == "\\" {
                                escaped = true
                            } else if character == "\"" {
                                break
                            } else {
                                parameterValue.append(character)
                            }
                        }
                    } else {
                        let token = characters.prefix { $0 != ";" && $0 != "," }
                        characters = characters.dropFirst(token.count)
                        parameterValue = token.trimmingSpaces
                    }
                }
                let key = name.trimmingSpaces.lowercased()
                // The first occurrence of a parameter counts (RFC 8288 §3.3 for rel).
                if !key.isEmpty, link.parameters[key] == nil { link.parameters[key] = parameterValue }
            }
            links.append(link)
            guard let comma = characters.firstIndex(of: ",") else { return links }
            characters = characters[comma...]
        }
    }
}
