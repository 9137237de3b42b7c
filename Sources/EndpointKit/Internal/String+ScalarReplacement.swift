extension String {
    /// `self` with every occurrence of `target` replaced, compared scalar by scalar.
    ///
    /// `replacingOccurrences(of:with:)` compares `Character`s: a quote or a line feed followed by a combining mark
    /// is one `Character` that does not equal `"'"` or `"\n"`, so an escape written with it can be slipped past,
    /// and a secret followed by a combining mark is not found. Escaping and redaction use this instead.
    func replacingScalars(of target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        return String(unicodeScalars.replacing(target.unicodeScalars, with: replacement.unicodeScalars))
    }
}
