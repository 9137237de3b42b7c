#if OpenAPI
/// Swift names made from a description's names: `operationId`s, schema and property names, parameter names.
///
/// Words are split at anything that is not a letter or digit and at lower-to-upper case changes
/// (`GetCustomers_customer` → `get`, `customers`, `customer`); a name that would start with a digit gets a leading
/// `_`, and a keyword is wrapped in backticks where it is used.
enum SwiftName {
    /// `lowerCamelCase`, for factories, properties, parameters and enum cases.
    static func member(_ raw: String) -> String {
        let parts = words(raw)
        guard let first = parts.first else { return "value" }
        let name = first.lowercased() + parts.dropFirst().map(capitalized).joined()
        return leadingDigitGuarded(name)
    }

    /// `UpperCamelCase`, for types.
    static func type(_ raw: String) -> String {
        let name = words(raw).map(capitalized).joined()
        guard !name.isEmpty else { return "Value" }
        return leadingDigitGuarded(name)
    }

    /// `name` as it must be written where an identifier is expected: a keyword in backticks.
    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// A string literal holding `text`, with quotes, backslashes and control characters escaped.
    static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// The words of `raw`: runs of letters and digits, split again where a lowercase letter or digit is followed
    /// by an uppercase one, and where an uppercase run ends in a word (`HTTPServer` → `HTTP`, `Server`).
    static func words(_ raw: String) -> [String] {
        var result: [String] = []
        var current: [Character] = []
        func flush() {
            if !current.isEmpty { result.append(String(current)) }
            current = []
        }
        let characters = Array(raw)
        for (index, character) in characters.enumerated() {
            guard character.isLetter || character.isNumber, character.isASCII else {
                flush()
                continue
            }
            if let previous = current.last, character.isUppercase {
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let endsAcronym = previous.isUppercase && (next?.isLowercase ?? false)
                if previous.isLowercase || previous.isNumber || endsAcronym { flush() }
            }
            current.append(character)
        }
        flush()
        return result
    }

    private static func capitalized(_ word: String) -> String {
        guard let first = word.first else { return word }
        let rest = word.dropFirst()
        // An all-uppercase word reads as a word in camel case: `HTTP` → `Http`, `ID` → `Id`.
        let tail = rest.allSatisfy { $0.isUppercase || $0.isNumber } ? rest.lowercased() : String(rest)
        return first.uppercased() + tail
    }

    private static func leadingDigitGuarded(_ name: String) -> String {
        guard let first = name.first, first.isNumber else { return name }
        return "_" + name
    }

    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default",
        "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch",
        "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true",
        "try", "Type", "Protocol", "some", "any",
    ]
}
#endif
