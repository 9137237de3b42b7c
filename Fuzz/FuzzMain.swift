import Foundation

/// libFuzzer's entry point: runs the target named by the environment variable `FUZZ_TARGET` on one input.
/// Built by `scripts/fuzz.sh`, which compiles this folder together with EndpointKit's sources.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    switch FuzzTarget.current {
    case .path: PathFuzz.run(&input)
    case .query: QueryFuzz.run(&input)
    case .header: HeaderFuzz.run(&input)
    case .multipart: MultipartFuzz.run(&input)
    case .curl: CURLFuzz.run(&input)
    case .envelope: EnvelopeFuzz.run(&input)
    case .eventStream: EventStreamFuzz.run(&input)
    case .headerNumber: HeaderNumberFuzz.run(&input)
    case .cacheHeaders: CacheHeadersFuzz.run(&input)
    }
    return 0
}

/// The fuzz targets, by the names `FUZZ_TARGET` takes.
enum FuzzTarget: String, CaseIterable {
    case path, query, header, multipart, curl, envelope
    case eventStream = "event-stream"
    case headerNumber = "header-number"
    case cacheHeaders = "cache-headers"

    static let current: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("set FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(64)
        }
        return target
    }()
}
