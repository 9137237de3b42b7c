#if AsyncHTTPClient
import EndpointKit
import Foundation

// Peak memory and throughput of large streamed bodies through AsyncHTTPClientTransport against raw
// AsyncHTTPClient doing the same work. Each measurement runs in a process of its own, so that its peak resident
// size is its own; scripts/benchmark-ahc.sh starts nginx, prepares the files once and interleaves the runs.
//
//   endpointkit-ahc-benchmarks prepare NGINX_URL MEBIBYTES [CASE...]   uploads the files (of every case, or
//                                                                      of those named); prints a line per case
//   endpointkit-ahc-benchmarks run CASE SIDE NGINX_URL PATH COUNT
//
// CASE is json-lines (decoding rows), events (reading Server-Sent Events) or download (to a file); SIDE is
// endpointkit or raw.
//
//   endpointkit-ahc-benchmarks compare NGINX_URL PAIRS
//                                          1 KB calls through AsyncHTTPClientTransport against raw AsyncHTTPClient,
//                                          interleaved: median and range of the per-pair wall and CPU ratios
//
//   endpointkit-ahc-benchmarks idle-stream asynchttpclient|urlsession FAULT_URL [LINES]
//                                          CPU per second of a JSON Lines stream sending one small line a second

let arguments = CommandLine.arguments
switch (arguments.count, arguments.dropFirst().first) {
case (4..., "prepare"):
    guard let nginxURL = URL(string: arguments[2]), let mebibytes = Int(arguments[3]) else { usage() }
    let cases = arguments.count > 4 ? Set(arguments[4...]) : ["json-lines", "events", "download"]
    for line in try await Preparation.upload(nginxURL: nginxURL, mebibytes: mebibytes, cases: cases) {
        print(line)
    }
case (7, "run"):
    guard let nginxURL = URL(string: arguments[4]), let count = Int(arguments[6]) else { usage() }
    let measurement = try await Measurement.run(
        case: arguments[2],
        side: arguments[3],
        nginxURL: nginxURL,
        path: arguments[5],
        count: count
    )
    print(measurement)
case (4, "compare"):
    guard let nginxURL = URL(string: arguments[2]), let pairs = Int(arguments[3]) else { usage() }
    try await Comparison.run(nginxURL: nginxURL, pairs: pairs)
case (4..., "idle-stream"):
    guard let faultURL = URL(string: arguments[3]) else { usage() }
    let lines = arguments.count > 4 ? Int(arguments[4]) ?? 10 : 10
    print(try await IdleStream.run(side: arguments[2], faultURL: faultURL, lines: lines))
default:
    usage()
}

func usage() -> Never {
    print(
        "usage: \(arguments[0]) prepare NGINX_URL MEBIBYTES [CASE...] | run CASE SIDE NGINX_URL PATH COUNT"
            + " | compare NGINX_URL PAIRS | idle-stream asynchttpclient|urlsession FAULT_URL [LINES]"
    )
    exit(2)
}
#endif
