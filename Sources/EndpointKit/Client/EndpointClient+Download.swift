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

    /// Prepares the call and hands it to the executor in `Downloads/`.
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
        return try await DownloadExecutor.run(
            client: self,
            prepared: prepared,
            destination: destination,
            report: report
        )
    }
}
