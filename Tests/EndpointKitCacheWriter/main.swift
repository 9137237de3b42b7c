import EndpointKit
import Foundation

/// Writes entries into a ``DiskCacheStorage`` for the disk store's tests, which run it as another process: to
/// kill it mid-write, and to run two of it on one directory at once.
///
///     EndpointKitCacheWriter DIR SEED COUNT SIZE MAXIMUM
///
/// Stores COUNT entries (0: until killed) of SIZE bytes under 40 keys, in a directory bounded to MAXIMUM bytes.
/// Each body is bytes of a seeded generator, and its `X-Check` header their sum, so that a reader can tell a
/// whole entry from a torn one. Prints `ready` once the first entry is stored, as the second store begins.
let arguments = CommandLine.arguments
guard arguments.count == 6, let seed = UInt64(arguments[2]), let count = Int(arguments[3]),
    let size = Int(arguments[4]), let maximum = Int(arguments[5])
else {
    FileHandle.standardError.write(Data("usage: EndpointKitCacheWriter DIR SEED COUNT SIZE MAXIMUM\n".utf8))
    exit(2)
}
let storage: DiskCacheStorage
do {
    storage = try DiskCacheStorage(
        directory: URL(fileURLWithPath: arguments[1]),
        maximumSize: maximum,
        maximumEntrySize: maximum
    )
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
/// xorshift64: the same bytes for the same seed.
struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
var generator = Generator(state: seed | 1)
// The bytes are made once; each entry changes its first 8, so that the loop is mostly writing files (where a
// kill should land), not making bytes.
var bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
var baseSum = bytes.reduce(UInt64(0)) { $0 &+ UInt64($1) }
var written = 0
while count == 0 || written < count {
    var sum = baseSum
    for index in 0..<min(8, size) {
        sum &-= UInt64(bytes[index])
        bytes[index] = UInt8(truncatingIfNeeded: generator.next())
        sum &+= UInt64(bytes[index])
    }
    baseSum = sum
    let key = HTTPCache.Key(partition: "", method: .get, url: "https://writer.test/\(generator.next() % 40)")
    let entry = HTTPCache.Entry(
        statusCode: 200,
        headers: ["X-Check": String(sum), "X-Writer": String(seed)],
        body: Data(bytes),
        requestDate: Date(),
        responseDate: Date(),
        secondaryKey: nil
    )
    if written == 1 {
        // Said just before the second store starts, so that a kill right after it lands inside that store.
        FileHandle.standardOutput.write(Data("ready\n".utf8))
    }
    storage.store(entry, for: key)
    written += 1
}
