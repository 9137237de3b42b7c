extension DecodingError {
    /// Where decoding failed, as `result.items[3].price`; for a missing key, the path includes that key.
    var codingPathDescription: String {
        switch self {
        case .keyNotFound(let key, let context):
            return Self.describe(context.codingPath + [key])
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return Self.describe(context.codingPath)
        @unknown default:
            return ""
        }
    }

    /// What went wrong, without the coding path.
    var summary: String {
        switch self {
        case .keyNotFound(let key, _):
            return "no value for key \"\(key.stringValue)\""
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

    private static func describe(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text
    }
}
