#if Postgres && AsyncHTTPClient
import EndpointKit
import Logging

/// A log handler that keeps every message at `warning` or above, for tests of what a component says.
struct RecordingLogHandler: LogHandler {
    let warnings = Locked([String]())
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        if event.level >= .warning { warnings.withLock { $0.append("\(event.message)") } }
    }

    /// A logger that writes to this handler.
    var logger: Logger { Logger(label: "endpointkit.tests.recorded") { _ in self } }
}
#endif
