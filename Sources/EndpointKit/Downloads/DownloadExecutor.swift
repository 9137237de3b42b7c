import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs one download: claims the destination, then executes the ``DownloadPlan``. Each request the plan asks for
/// goes through the client's pipeline with its body written to the partial file; each step's file work is done
/// here. What ``EndpointClient/download(for:using:to:)`` runs.
struct DownloadExecutor {
    /// What a request led to: the plan's next step, or the end (a finished file the server says is current).
    enum Step {
        case next(DownloadPlan.Next)
        case done(Response<URL>)
    }

    let pipeline: Pipeline
    let redactor: Redactor
    let prepared: PreparedCall
    let destination: URL
    let report: @Sendable (DownloadProgress) -> Void
    let files: DownloadFiles
    let url: URL
    var plan: DownloadPlan
    /// A finished file from this URL, unchanged since: the first request asks whether it is still current.
    let finished: DownloadFiles.Completion?
    let resumedFrom: Int64
    let stopwatch: Stopwatch
    var firstHead: Duration?
    /// Requests sent, retries included.
    var sends = 0
    /// Sends beyond the first of each part: a retry, or a refused request sent again.
    var retries = 0
    /// The last head, which the result reports: a 416 that found the file whole has no response of its own.
    var last: (status: Int, headers: HTTPHeaders, url: URL?) = (416, HTTPHeaders(), nil)

    /// Claims `destination` (one download at a time writes it), then downloads; errors name the request, with its
    /// secrets scrubbed.
    static func run(
        client: EndpointClient,
        prepared: PreparedCall,
        destination: URL,
        report: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws(EndpointError) -> Response<URL> {
        do throws(EndpointError) {
            let lock = try DownloadLock.claim(destination)
            defer { lock.release() }
            // The partial file and its state are read only once the destination is this download's.
            var executor = DownloadExecutor(
                client: client,
                prepared: prepared,
                destination: destination,
                report: report
            )
            return try await executor.run()
        } catch {
            // Failures of the file and of the body after the pipeline returned name the request too.
            var error = error
            let redactor = client.pipeline.redactor(for: prepared)
            if error.request == nil { error.request = redactor.summary(of: prepared.request) }
            throw error.redactingSecrets(redactor.secrets(of: prepared.request))
        }
    }

    private init(
        client: EndpointClient,
        prepared: PreparedCall,
        destination: URL,
        report: @escaping @Sendable (DownloadProgress) -> Void
    ) {
        pipeline = client.pipeline
        redactor = client.pipeline.redactor(for: prepared)
        self.prepared = prepared
        self.destination = destination
        self.report = report
        url = prepared.request.url
        files = DownloadFiles(destination: destination)
        plan = DownloadPlan(
            kept: files.resumption(for: url),
            partSize: client.defaults.downloadPartSize,
            canBeSentAgain: prepared.request.canBeSentAgain
        )
        if plan.kept == nil { files.discard() }
        finished = plan.kept == nil && prepared.request.method == .get ? files.completion(for: url) : nil
        resumedFrom = plan.kept?.bytes ?? 0
        stopwatch = Stopwatch(client.clock)
    }

    /// Follows the plan to the end.
    private mutating func run() async throws(EndpointError) -> Response<URL> {
        var next = DownloadPlan.Next.send
        while true {
            if let done = try settle(next) { return done }
            switch try await send(plan.ask()) {
            case .next(let following): next = following
            case .done(let response): return response
            }
        }
    }

    /// Does the file work `next` asks for before the next request; returns the result when the download is over.
    private func settle(_ next: DownloadPlan.Next) throws(EndpointError) -> Response<URL>? {
        switch next {
        case .send, .write, .rethrow: return nil
        case .sendAfterDiscarding:
            files.discard()
            return nil
        case .giveUp:
            throw EndpointError(.responseRejected, "the server did not honour the download's resumption twice")
        case .fail(let message):
            throw EndpointError(.transportFailed, message, isTransient: true)
        case .complete(let creatingEmptyFile):
            do {
                if creatingEmptyFile { _ = try files.open(restarting: true) }
                try files.complete()
                files.rememberCompletion(of: url, headers: last.headers)
            } catch {
                throw EndpointError(
                    .transportFailed,
                    "the download could not be moved into place: \(error)",
                    underlyingError: error
                )
            }
            return Response(
                value: destination,
                statusCode: last.status,
                headers: last.headers,
                url: last.url,
                attempts: 1 + retries,
                timeToFirstByte: firstHead ?? stopwatch.elapsed,
                duration: stopwatch.elapsed
            )
        }
    }

    /// Sends the request `ask` describes and writes its body; returns what the plan says comes next, or `.done`
    /// for a finished file the server says is still current.
    private mutating func send(_ ask: DownloadPlan.Ask) async throws(EndpointError) -> Step {
        var call = prepared
        if let range = ask.range { call.request.headers["Range"] = range }
        if let ifRange = ask.ifRange { call.request.headers["If-Range"] = ifRange }
        let isConditional = sends == 0 && ask.range == nil && finished != nil
        if isConditional, let finished {
            if let eTag = finished.eTag { call.request.headers[.ifNoneMatch] = eTag }
            if let modified = finished.lastModified { call.request.headers[.ifModifiedSince] = modified }
        }
        let writer = DownloadWriter(files: files, ask: ask, resumedFrom: resumedFrom, report: report)
        // Decided on the transport's thread as the head arrives, so no byte waits for this task to wake.
        let isHead = call.request.method == .head
        let sink = BodySink { status, headers in
            writer.writer(
                statusCode: status,
                headers: headers,
                length: headers.announcedBodyLength(statusCode: status, isHead: isHead)
            )
        }
        let result: Pipeline.Result
        do {
            result = try await pipeline.run(call, body: .write(to: sink))
        } catch {
            return try refused(error, isConditional: isConditional)
        }
        return .next(try await received(result, ask: ask, writer: writer, sentTo: call.request))
    }

    /// What comes after a request the pipeline failed: a 304 that leaves the finished file as it is, or what the
    /// plan makes of the refusal (a 416, a 200 for a range), or the error itself.
    private mutating func refused(_ error: EndpointError, isConditional: Bool) throws(EndpointError) -> Step {
        if isConditional, error.statusCode == 304 {
            // Not modified: the file stays as it is, untouched.
            return .done(
                Response(
                    value: destination,
                    statusCode: 304,
                    headers: error.responseHeaders ?? HTTPHeaders(),
                    url: url,
                    attempts: error.attempts ?? 1,
                    timeToFirstByte: stopwatch.elapsed,
                    duration: stopwatch.elapsed,
                    source: .revalidated
                )
            )
        }
        let total = ContentRange(error.responseHeaders?["Content-Range"])?.total
        sends += error.attempts ?? 1
        retries += error.attempts ?? 1
        let status = error.kind == .unacceptableStatus ? error.statusCode : nil
        let next = plan.afterRefusal(statusCode: status, total: total)
        guard next != .rethrow else { throw error }
        last = (error.statusCode ?? 416, error.responseHeaders ?? HTTPHeaders(), nil)
        return .next(next)
    }

    /// What comes after a response head: its body written when the plan wants it, then the plan's next step.
    private mutating func received(
        _ result: Pipeline.Result,
        ask: DownloadPlan.Ask,
        writer: DownloadWriter,
        sentTo request: TransportRequest
    ) async throws(EndpointError) -> DownloadPlan.Next {
        sends += result.attempts
        retries += result.attempts - 1
        let response = result.response
        if firstHead == nil { firstHead = result.call.timeToFirstByte }
        last = (response.statusCode, response.headers, response.url)
        let isHead = request.method == .head
        let length =
            response.body.length.map(Int64.init)
            ?? response.headers.announcedBodyLength(statusCode: response.statusCode, isHead: isHead)
        let target =
            writer.plan
            ?? DownloadPlan.target(for: ask, statusCode: response.statusCode, headers: response.headers, length: length)
        let next = plan.afterHead(target)
        guard next == .write, let target else { return next }
        files.remember(url, headers: response.headers)
        try await write(response, with: writer, length: length, sentTo: request)
        return plan.afterBody(
            written: writer.written,
            target: target,
            statusCode: response.statusCode,
            keptNow: files.resumption(for: url)
        )
    }

    /// Waits for the body to be written by `writer`: already on the transport's thread, or drained into it now.
    /// A body cut after a redirect names the hop that sent it (the CDN), as any failure after a redirect does.
    private func write(
        _ response: TransportResponse,
        with writer: DownloadWriter,
        length: Int64?,
        sentTo request: TransportRequest
    ) async throws(EndpointError) {
        defer { writer.close() }
        do {
            // The transport installed the writer as the head arrived, or it is opened now, once.
            let write =
                writer.plan != nil
                ? nil : writer.writer(statusCode: response.statusCode, headers: response.headers, length: length)
            try await response.body.drain(into: write ?? { _ in })
        } catch {
            var failure = EndpointError.wrapping(error)
            failure.message += " (\(writer.written) bytes are kept in \(writer.partialName) for the next download)"
            if failure.hop == nil, let url = response.url, url != request.url {
                failure.hop = RequestSummary(method: request.method, redactedURL: redactor.redactedString(for: url))
            }
            throw failure
        }
    }
}
