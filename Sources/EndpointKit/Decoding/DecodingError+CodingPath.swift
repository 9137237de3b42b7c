import Foundation

extension DecodingError {
    /// Whether `decoder` renamed the body's keys (`.convertFromSnakeCase`), so that errors name them as written.
    static func namesWireKeys(_ decoder: JSONDecoder) -> Bool {
        if case .convertFromSnakeCase = decoder.keyDecodingStrategy { return true }
        return false
    }

    /// Where decoding failed, as `result.items[3].price`; for a missing key, the path includes that key. With
    /// `wireKeys`, each key is written as the body spells it (`stargazers_count`), not as the Swift property
    /// (`stargazersCount`) a `.convertFromSnakeCase` decoder renamed it to.
    func codingPathDescription(wireKeys: Bool = false) -> String {
        switch self {
        case .keyNotFound(let key, let context):
            return Self.describe(context.codingPath + [key], wireKeys: wireKeys)
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return Self.describe(context.codingPath, wireKeys: wireKeys)
        @unknown default:
            return ""
        }
    }

    /// What went wrong, without the coding path; a missing key is named as the body would spell it with
    /// `wireKeys`.
    func summary(wireKeys: Bool = false) -> String {
        switch self {
        case .keyNotFound(let key, _):
            let name = wireKeys ? Self.snakeCase(key.stringValue) : key.stringValue
            return "no value for key \"\(name)\""
        case .typeMismatch(let type, let context):
            return "expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "expected \(type) but found null: \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "invalid data: \(context.debugDescription)"
        @unknown default:
            return "\(self)"
        }
    }

    private static func describe(_ path: [any CodingKey], wireKeys: Bool) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += wireKeys ? snakeCase(key.stringValue) : key.stringValue
            }
        }
        return text
    }

    /// The snake_case key `.convertFromSnakeCase` reads as `name`: `stargazersCount` → `stargazers_count`. (A name
    /// with an acronym, such as `avatarURL`, is not one that decoder can make; it is written `avatar_url`, the key
    /// a reader most likely meant.)
    static func snakeCase(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let startsWord = previous.isLowercase || previous.isNumber
                let endsAcronym = previous.isUppercase && next.map { $0.isLowercase && $0 != "s" } == true
                if startsWord || endsAcronym { result.append("_") }
            }
            result += character.lowercased()
        }
        return result
    }
}
