extension String {
    /// `self` with every occurrence of `target` replaced, compared scalar by scalar.
    ///
    /// `replacingOccurrences(of:with:)` compares `Character`s: a quote or a line feed followed by a combining mark
    /// is one `Character` that does not equal `"'"` or `"\n"`, so an escape written with it can be slipped past,
    /// and a secret followed by a combining mark is not found. Escaping and redaction use this instead.
    func replacingScalars(of target: String, with replacement: String) -> String {
        let needle = Array(target.unicodeScalars)
        guard !needle.isEmpty else { return self }
        let scalars = Array(unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if scalars[index] == needle[0], index + needle.count <= scalars.count,
                scalars[index..<(index + needle.count)].elementsEqual(needle)
            {
                output.append(contentsOf: replacement.unicodeScalars)
                index += needle.count
            } else {
                output.append(scalars[index])
                index += 1
            }
        }
        return String(output)
    }
}
