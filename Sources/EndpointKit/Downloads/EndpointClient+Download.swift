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

    private func performDownload<Kind: EndpointKind, Response>(
        _ endpoint: Endpoint<Kind, Response>,
        using requestData: Kind.RequestData,
        to destination: URL,
        report: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws(EndpointError) -> EndpointKit.Response<URL> {
        let started = ContinuousClock.now
        var base = try endpoint.makeTransportRequest(in: environment, with: requestData, defaults: defaults)
        defer { base.removeTemporaryBodyFile() }
        // Byte ranges count the bytes as sent; Linux URLSession would hand over inflated ones.
        if !base.headers.contains(.acceptEncoding) { base.headers[.acceptEncoding] = "identity" }
        do {
            let lock = try DownloadLock.claim(destination)
            defer { lock.release() }
            return try await downloadFile(base, for: endpoint, to: destination, startedAt: started, report: report)
        } catch {
            // Failures of the file and of the body after the pipeline returned name the request too.
            var error = error
            if error.request == nil { error.request = redactor.summary(of: base) }
            throw error.redactingSecrets(redactor.secrets(of: base))
        }
    }

    /// The download of `base`, in one response or in parts, resumed where a partial file allows.
    private func downloadFile<Kind: EndpointKind, Response>(
        _ base: TransportRequest,
        for endpoint: Endpoint<Kind, Response>,
        to destination: URL,
        startedAt started: ContinuousClock.Instant,
        report: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws(EndpointError) -> EndpointKit.Response<URL> {
        let files = DownloadFiles(destination: destination)
        var resumption = files.resumption(for: base.url)
        if resumption == nil { files.discard() }
        let resumedFrom = resumption?.bytes ?? 0
        // In parts only when the request can be sent once per part.
        var partSize = defaults.downloadPartSize.flatMap { $0 > 0 && base.canBeSentAgain ? Int64($0) : nil }
        var firstHeadAt: ContinuousClock.Instant?
        var isFirstRequest = true
        // A resumption the server cannot honour is retried once from the start.
        var restarts = 0
        while restarts < 2 {
            var request = base
            let start = resumption?.bytes ?? 0
            if let partSize {
                let (end, overflow) = start.addingReportingOverflow(partSize - 1)
                request.headers["Range"] = "bytes=\(start)-\(overflow ? Int64.max : end)"
            } else if resumption != nil {
                request.headers["Range"] = "bytes=\(start)-"
            }
            if let resumption { request.headers["If-Range"] = resumption.validator }
            let writer = DownloadWriter(
                files: files,
                resumedBytes: partSize != nil ? start : resumption?.bytes,
                validator: resumption?.validator,
                resumedFrom: resumedFrom,
                report: report
            )
            // Decided on the transport's thread as the head arrives, so no byte waits for this task to wake.
            request.bodySink = { status, headers in
                writer.writer(statusCode: status, headers: headers, length: Self.announcedLength(in: headers))
            }
            let context = context(for: endpoint)
            let response: TransportResponse
            do {
                response = try await execute(request, context: context, bodyLimit: nil, validating: true)
            } catch {
                let total = ContentRange(error.responseHeaders?["Content-Range"])?.total
                // A range that starts at or past the end: of a partial file kept, or of an empty file in parts.
                guard error.kind == .unacceptableStatus, error.statusCode == 416, isFirstRequest,
                    resumption != nil || (partSize != nil && total == 0)
                else { throw attachingCURLCommand(to: error, for: request) }
                isFirstRequest = false
                // Either the partial file is the whole file (or the file is empty), or it is stale.
                if total == resumption?.bytes ?? 0 {
                    do {
                        if resumption == nil { _ = try files.open(restarting: true) }
                    } catch {
                        throw EndpointError(.transportFailed, "the download could not be written: \(error)")
                    }
                    return try finish(
                        files,
                        at: started,
                        firstHeadAt: firstHeadAt,
                        response: nil,
                        headers: error.responseHeaders,
                        context: context
                    )
                }
                files.discard()
                resumption = nil
                restarts += 1
                continue
            }
            isFirstRequest = false
            if firstHeadAt == nil { firstHeadAt = response.headReceivedAt }
            let length = Self.announcedLength(of: response)
            guard
                let plan = writer.plan
                    ?? writer.plan(for: response.statusCode, headers: response.headers, length: length)
            else {
                // A 206 for another range than the one kept, or of another version of the file: start again.
                files.discard()
                resumption = nil
                restarts += 1
                continue
            }
            files.remember(request.url, headers: response.headers)
            try await write(response, with: writer, plan: plan)
            let isPart = partSize != nil && response.statusCode == 206
            if let expected = plan.expected, writer.written != expected {
                // One part of the file: the next is asked for with the validator this one named. Without one,
                // later parts could not be checked against this one, so the file is asked for again, whole.
                guard isPart, writer.written > start else {
                    throw EndpointError(
                        .transportFailed,
                        "the download ended after \(writer.written) of \(expected) bytes; the next download resumes it",
                        isTransient: true
                    )
                }
                if let next = files.resumption(for: base.url) {
                    resumption = next
                } else {
                    files.discard()
                    resumption = nil
                    partSize = nil
                }
                continue
            }
            if isPart, plan.expected == nil {
                // A part of a file of unknown size: whether more follows cannot be told, so ask for it whole.
                files.discard()
                resumption = nil
                partSize = nil
                continue
            }
            return try finish(
                files,
                at: started,
                firstHeadAt: firstHeadAt,
                response: response,
                headers: response.headers,
                context: context
            )
        }
        throw EndpointError(.responseRejected, "the server did not honour the download's resumption twice")
    }

    /// Waits for the body to be written by `writer`: already on the transport's thread, or drained into it now.
    private func write(_ response: TransportResponse, with writer: DownloadWriter, plan: DownloadWriter.Plan)
        async throws(EndpointError)
    {
        defer { writer.close() }
        do {
            // The transport installed the writer as the head arrived, or it is opened now, once.
            let installed = writer.plan != nil
            let length = Self.announcedLength(of: response)
            let write =
                installed
                ? nil : writer.writer(statusCode: response.statusCode, headers: response.headers, length: length)
            try await response.body.drain(into: write ?? { _ in })
        } catch {
            var failure = EndpointError.wrapping(error)
            let kept = writer.written
            failure.message += " (\(kept) bytes are kept in \(writer.partialName) for the next download)"
            throw failure
        }
        if let end = plan.end, writer.written != end {
            throw EndpointError(
                .transportFailed,
                "the download ended after \(writer.written) of \(end) bytes; the next download resumes it",
                isTransient: true
            )
        }
    }

    /// The body's length from the transport, or else from its `Content-Length` when it is not encoded.
    private static func announcedLength(of response: TransportResponse) -> Int64? {
        response.body.length.map(Int64.init) ?? announcedLength(in: response.headers)
    }

    private static func announcedLength(in headers: HTTPHeaders) -> Int64? {
        guard headers["Content-Encoding"].map({ $0.lowercased() == "identity" }) ?? true else { return nil }
        return headers[.contentLength].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Moves the finished file into place and describes it.
    private func finish(
        _ files: DownloadFiles,
        at started: ContinuousClock.Instant,
        firstHeadAt: ContinuousClock.Instant?,
        response: TransportResponse?,
        headers: HTTPHeaders?,
        context: RequestContext
    ) throws(EndpointError) -> EndpointKit.Response<URL> {
        do {
            try files.complete()
        } catch {
            throw EndpointError(
                .transportFailed,
                "the download could not be moved into place: \(error)",
                underlyingError: error
            )
        }
        return EndpointKit.Response(
            value: files.destination,
            statusCode: response?.statusCode ?? 416,
            headers: headers ?? HTTPHeaders(),
            url: response?.url,
            attempts: max(context.call?.attemptCount ?? 1, 1),
            timeToFirstByte: started.duration(to: firstHeadAt ?? response?.headReceivedAt ?? .now),
            duration: started.duration(to: .now)
        )
    }
}
