import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension EndpointClient {
    /// Downloads `endpoint`'s body to the file at `destination`, as it arrives, with progress.
    ///
    ///     let download = client.download(for: .releaseAsset(id), using: token, to: downloads.appending(path: "app.zip"))
    ///     let file = try await download.result().value
    ///
    /// The body is written to `.NAME.download` beside `destination` and moved over it in one step once complete,
    /// so `destination` never holds part of a file. The whole pipeline applies: credentials, refresh, retries
    /// before the first byte, redirects (a cross-origin hop, to a CDN say, goes without credentials) and
    /// validators on the head. The response size limit does not: the body never sits in memory. The total
    /// deadline covers the wait for the head; the idle timeout covers the body.
    ///
    /// When a download stops part way (a cut connection, a cancelled task), the partial file is kept, and the
    /// next download of the same URL to the same destination asks only for the rest (`Range` with `If-Range`, the
    /// server's `ETag` or `Last-Modified`). A server that sends the whole file instead (`200`), or whose file
    /// changed, restarts it cleanly; a partial file that was already whole (`416`) is completed as it is.
    ///
    /// A download to a destination that holds the finished file of an earlier download of the same URL, unchanged
    /// since, asks first whether it is still current (`If-None-Match` with its `ETag`, `If-Modified-Since` with
    /// its `Last-Modified`, kept in `.NAME.validators.json`). A `304 Not Modified` leaves the file as it is and
    /// returns a response with status 304 and ``ResponseSource/revalidated``. A download in parts asks with
    /// `Range` from its first request instead.
    ///
    /// With ``RequestDefaults/downloadPartSize`` set, the file is asked for that many bytes at a time, each part
    /// a `Range` request checked against the first part's validator, so that a transport without back-pressure
    /// (Linux URLSession) holds at most one part in memory.
    ///
    /// - Returns: A ``Download``: iterate it for progress events, or call ``Download/result()``.
    public func download<Kind: EndpointKind, Response>(
        for endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData,
        to destination: URL
    ) -> Download {
        Download { report in
            try await performDownload(endpoint, using: requestData, to: destination, report: report)
        }
    }

    /// Downloads an endpoint whose kind needs no request data; see ``download(for:using:to:)``.
    public func download<Kind: EndpointKind, Response>(
        for endpoint: Endpoint<Kind, Response>,
        to destination: URL
    ) -> Download where Kind.RequestData == Void {
        download(for: endpoint, using: (), to: destination)
    }

    /// Claims `destination`, then executes the ``DownloadPlan``: each request it asks for goes through the
    /// pipeline with its body written to the partial file, and each step's file work is done here.
    private func performDownload<Kind: EndpointKind, Response>(
        _ endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData,
        to destination: URL,
        report: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws(EndpointError) -> EndpointKit.Response<URL> {
        var prepared = try endpoint.makeCall(in: environment, with: requestData, defaults: defaults)
        defer { prepared.removeTemporaryBodyFile() }
        // Byte ranges count the bytes as sent; Linux URLSession would hand over inflated ones.
        if !prepared.request.headers.contains(.acceptEncoding) {
            prepared.request.headers[.acceptEncoding] = "identity"
        }
        let base = prepared.request
        do throws(EndpointError) {
            let lock = try DownloadLock.claim(destination)
            defer { lock.release() }
            let stopwatch = Stopwatch(clock)
            let url = prepared.request.url
            let files = DownloadFiles(destination: destination)
            var plan = DownloadPlan(
                kept: files.resumption(for: url),
                partSize: defaults.downloadPartSize,
                canBeSentAgain: prepared.request.canBeSentAgain
            )
            if plan.kept == nil { files.discard() }
            // A finished file from this URL, unchanged since: the first request asks whether it is still current.
            let finished = plan.kept == nil && prepared.request.method == .get ? files.completion(for: url) : nil
            let resumedFrom = plan.kept?.bytes ?? 0
            var firstHead: Duration?
            // Sends beyond the first of each part: a retry, or a refused request sent again.
            var retries = 0
            var attempts = 0
            // The last head, which the result reports: a 416 that found the file whole has no response of its own.
            var lastStatus = 416
            var lastHeaders = HTTPHeaders()
            var lastURL: URL?
            var next = DownloadPlan.Next.send
            while true {
                switch next {
                case .send, .write, .rethrow: break
                case .sendAfterDiscarding: files.discard()
                case .giveUp:
                    throw EndpointError(.responseRejected, "the server did not honour the download's resumption twice")
                case .fail(let message):
                    throw EndpointError(.transportFailed, message, isTransient: true)
                case .complete(let creatingEmptyFile):
                    do {
                        if creatingEmptyFile { _ = try files.open(restarting: true) }
                        try files.complete()
                        files.rememberCompletion(of: url, headers: lastHeaders)
                    } catch {
                        throw EndpointError(
                            .transportFailed,
                            "the download could not be moved into place: \(error)",
                            underlyingError: error
                        )
                    }
                    return EndpointKit.Response(
                        value: destination,
                        statusCode: lastStatus,
                        headers: lastHeaders,
                        url: lastURL,
                        attempts: 1 + retries,
                        timeToFirstByte: firstHead ?? stopwatch.elapsed,
                        duration: stopwatch.elapsed
                    )
                }
                let ask = plan.ask()
                var call = prepared
                if let range = ask.range { call.request.headers["Range"] = range }
                if let ifRange = ask.ifRange { call.request.headers["If-Range"] = ifRange }
                let isConditional = attempts == 0 && ask.range == nil && finished != nil
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
                    if isConditional, error.statusCode == 304 {
                        // Not modified: the file stays as it is, untouched.
                        return EndpointKit.Response(
                            value: destination,
                            statusCode: 304,
                            headers: error.responseHeaders ?? HTTPHeaders(),
                            url: url,
                            attempts: error.attempts ?? 1,
                            timeToFirstByte: stopwatch.elapsed,
                            duration: stopwatch.elapsed,
                            source: .revalidated
                        )
                    }
                    let total = ContentRange(error.responseHeaders?["Content-Range"])?.total
                    attempts += error.attempts ?? 1
                    retries += error.attempts ?? 1
                    let status = error.kind == .unacceptableStatus ? error.statusCode : nil
                    next = plan.afterRefusal(statusCode: status, total: total)
                    guard next != .rethrow else { throw error }
                    (lastStatus, lastHeaders, lastURL) = (
                        error.statusCode ?? 416, error.responseHeaders ?? HTTPHeaders(), nil
                    )
                    continue
                }
                attempts += result.attempts
                retries += result.attempts - 1
                let response = result.response
                if firstHead == nil { firstHead = result.call.timeToFirstByte }
                (lastStatus, lastHeaders, lastURL) = (response.statusCode, response.headers, response.url)
                let length =
                    response.body.length.map(Int64.init)
                    ?? response.headers.announcedBodyLength(statusCode: response.statusCode, isHead: isHead)
                let target =
                    writer.plan
                    ?? DownloadPlan.target(
                        for: ask,
                        statusCode: response.statusCode,
                        headers: response.headers,
                        length: length
                    )
                next = plan.afterHead(target)
                guard next == .write, let target else { continue }
                files.remember(url, headers: response.headers)
                try await write(response, with: writer, length: length, sentTo: call.request)
                next = plan.afterBody(
                    written: writer.written,
                    target: target,
                    statusCode: response.statusCode,
                    keptNow: files.resumption(for: url)
                )
            }
        } catch {
            // Failures of the file and of the body after the pipeline returned name the request too.
            var error = error
            if error.request == nil { error.request = redactor.summary(of: base) }
            throw error.redactingSecrets(redactor.secrets(of: base))
        }
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
            let kept = writer.written
            failure.message += " (\(kept) bytes are kept in \(writer.partialName) for the next download)"
            if failure.hop == nil, let url = response.url, url != request.url {
                failure.hop = RequestSummary(method: request.method, redactedURL: redactor.redactedString(for: url))
            }
            throw failure
        }
    }
}
