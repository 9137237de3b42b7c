/// A random number generator that repeats its numbers for a seed (SplitMix64): a randomized test prints its seed,
/// and a failing run is repeated exactly by passing it again.
///
///     let seed = UInt64(ProcessInfo.processInfo.environment["SEED"] ?? "") ?? .random(in: 1...(.max))
///     print("seed \(seed)")
///     var random = SeededGenerator(seed: seed)
///     let id = Int.random(in: 0..<8, using: &random)
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose numbers are fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next number of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
