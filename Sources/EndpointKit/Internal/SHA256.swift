import Foundation

/// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for the HTTP cache's keyed hashes: the core may depend
/// on nothing but the toolchain, and Foundation on Linux has no digest. Not for passwords or signatures.
///
/// Written for the cache's per-call use: no allocation per block, and an ``Authenticator`` that absorbs its key
/// once, so that a keyed hash of a short text costs two compressions.
struct SHA256 {
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// The eight working words.
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// Bytes absorbed in whole blocks so far.
    private var absorbed = 0

    /// Compresses one 64-byte block at `block`.
    private mutating func compress(_ block: UnsafePointer<UInt8>) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            for index in 0..<16 {
                let offset = index * 4
                schedule[index] =
                    UInt32(block[offset]) << 24 | UInt32(block[offset + 1]) << 16 | UInt32(block[offset + 2]) << 8
                    | UInt32(block[offset + 3])
            }
            for index in 16..<64 {
                let early = schedule[index - 15]
                let late = schedule[index - 2]
                let sigma0 = early.rotatedRight(7) ^ early.rotatedRight(18) ^ (early >> 3)
                let sigma1 = late.rotatedRight(17) ^ late.rotatedRight(19) ^ (late >> 10)
                schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.roundConstants.withUnsafeBufferPointer { constants in
                for index in 0..<64 {
                    let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choice = (e & f) ^ (~e & g)
                    let temp1 = h &+ sum1 &+ choice &+ constants[index] &+ schedule[index]
                    let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temp1, c, b, a, temp1 &+ sum0 &+ majority)
                }
            }
            state = (
                state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g,
                state.7 &+ h
            )
        }
        absorbed += 64
    }

    /// The digest of everything absorbed, then `tail`: its whole blocks, then the padding and the length.
    private func finishing(_ tail: UnsafeRawBufferPointer) -> [UInt8] {
        var copy = self
        let bytes = tail.bindMemory(to: UInt8.self)
        var offset = 0
        while bytes.count - offset >= 64, let base = bytes.baseAddress {
            copy.compress(base + offset)
            offset += 64
        }
        let bitLength = UInt64(copy.absorbed + bytes.count - offset) &* 8
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { last in
            let remaining = bytes.count - offset
            for index in 0..<remaining { last[index] = bytes[offset + index] }
            last[remaining] = 0x80
            let length = remaining + 1 + 8 <= 64 ? 64 : 128
            for index in (remaining + 1)..<(length - 8) { last[index] = 0 }
            for index in 0..<8 { last[length - 8 + index] = UInt8(truncatingIfNeeded: bitLength >> (56 - 8 * index)) }
            guard let base = last.baseAddress else { return }
            copy.compress(base)
            if length == 128 { copy.compress(base + 64) }
        }
        let words = [
            copy.state.0, copy.state.1, copy.state.2, copy.state.3, copy.state.4, copy.state.5,
            copy.state.6, copy.state.7,
        ]
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in words {
            for shift in stride(from: 24, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> shift))
            }
        }
        return digest
    }

    /// The digest of `message`: 32 bytes.
    static func hash<Bytes: Collection<UInt8>>(_ message: Bytes) -> [UInt8] {
        let bytes = Array(message)
        return bytes.withUnsafeBytes { SHA256().finishing($0) }
    }

    /// HMAC-SHA-256 under one key, the key's two blocks absorbed once.
    struct Authenticator: Sendable {
        private let inner: SHA256
        private let outer: SHA256

        /// 32 bytes from the system's secure generator: a key of its own for a cache, or a directory's secret.
        static func randomKey() -> [UInt8] {
            var generator = SystemRandomNumberGenerator()
            return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        }

        init<Key: Collection<UInt8>>(key: Key) {
            var block = key.count > 64 ? SHA256.hash(key) : Array(key)
            block += [UInt8](repeating: 0, count: 64 - block.count)
            var inner = SHA256()
            var outer = SHA256()
            (block.map { $0 ^ 0x36 }).withUnsafeBufferPointer { bytes in
                if let base = bytes.baseAddress { inner.compress(base) }
            }
            (block.map { $0 ^ 0x5c }).withUnsafeBufferPointer { bytes in
                if let base = bytes.baseAddress { outer.compress(base) }
            }
            self.inner = inner
            self.outer = outer
        }

        /// HMAC-SHA-256 of `message`: 32 bytes.
        func code(for message: UnsafeRawBufferPointer) -> [UInt8] {
            let innerDigest = inner.finishing(message)
            return innerDigest.withUnsafeBytes { outer.finishing($0) }
        }

        /// HMAC-SHA-256 of `text`'s UTF-8: 32 bytes.
        func code(for text: String) -> [UInt8] {
            var text = text
            return text.withUTF8 { code(for: UnsafeRawBufferPointer($0)) }
        }
    }

    /// HMAC-SHA-256 of `message` under `key`: 32 bytes.
    static func authenticationCode<Key: Collection<UInt8>, Message: Collection<UInt8>>(
        for message: Message,
        key: Key
    ) -> [UInt8] {
        Array(message).withUnsafeBytes { Authenticator(key: key).code(for: $0) }
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { self >> count | self << (32 - count) }
}

extension Collection<UInt8> {
    /// The bytes as lowercase hexadecimal.
    var hexadecimal: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
