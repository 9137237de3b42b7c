import Foundation

/// Reads a fuzzer's bytes as the parts of one case: small numbers, byte strings and text, each taken from the
/// front. Once the bytes run out every read returns an empty or zero value, so any input makes a case.
struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    init(_ data: UnsafeRawBufferPointer) { bytes = ArraySlice(data) }

    init(_ bytes: [UInt8]) { self.bytes = ArraySlice(bytes) }

    var isEmpty: Bool { bytes.isEmpty }

    /// One byte, or 0.
    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    /// A number below `bound` (which must be positive).
    mutating func number(below bound: Int) -> Int { Int(byte()) % bound }

    /// Bytes up to the next 0xFF separator (or the end), without it.
    mutating func field() -> [UInt8] {
        let end = bytes.firstIndex(of: 0xFF) ?? bytes.endIndex
        let field = Array(bytes[bytes.startIndex..<end])
        bytes = end < bytes.endIndex ? bytes[(end + 1)...] : []
        return field
    }

    /// A field as text; bytes that are not UTF-8 become U+FFFD, as they would reaching a `String` anywhere.
    mutating func text() -> String { String(decoding: field(), as: UTF8.self) }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] {
        defer { bytes = [] }
        return Array(bytes)
    }
}

/// A broken invariant: prints what was expected and stops the process, so libFuzzer saves the input.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        FileHandle.standardError.write(Data("INVARIANT BROKEN: \(message())\n".utf8))
        abort()
    }
}

extension String {
    /// Whether `other` occurs in `self`, compared scalar by scalar. Foundation's `contains(_:)` cannot be used on
    /// fuzzed text: on Linux it stops the process when the needle holds a NUL and runs past the end of the
    /// haystack (`"m(\u{FFFD}".contains("\u{FFFD}\u{0}")` is a fatal "String index is out of bounds").
    func containsScalars(_ other: String) -> Bool {
        replacingScalars(of: other, with: "") != self || other.isEmpty
    }
}

/// `value`, or a broken invariant when it is `nil`.
func required<Value>(_ value: Value?, _ message: @autoclosure () -> String) -> Value {
    guard let value else {
        require(false, message())
        fatalError("unreachable: require stops the process")
    }
    return value
}
