import Foundation

/// What a server's caching and paging headers can do to the client: `Cache-Control`, `Date`, `Expires`,
/// `Last-Modified`, `Age`, `Vary`, `ETag` and `Link`, and a disk cache file's bytes. None may crash; freshness and
/// age are never negative or NaN, a stored response round-trips through the disk format, and a next link
/// resolves to an absolute URL or to nothing.
enum CacheHeadersFuzz {
    static func run(_ input: inout FuzzInput) {
        var headers = HTTPHeaders()
        for name in ["Cache-Control", "Date", "Expires", "Last-Modified", "Age", "Vary", "ETag", "Link"] {
            let value = input.text()
            if !value.isEmpty { headers.add(value, for: HTTPHeaders.Name(name)) }
        }
        let statusCode = [200, 203, 206, 301, 304, 404, 500][input.number(below: 7)]
        let control = CacheControl(headers)
        for name in ["max-age", "stale-while-revalidate", "stale-if-error", "max-stale"] {
            if let seconds = control.seconds(name) { require(seconds >= 0 && !seconds.isNaN, "\(name) = \(seconds)") }
        }
        let responseDate = Date(timeIntervalSince1970: 1_700_000_000)
        let lifetime = CacheRules.freshnessLifetime(
            statusCode: statusCode,
            headers: headers,
            control: control,
            at: responseDate
        )
        require(lifetime >= 0 && !lifetime.isNaN, "freshness lifetime \(lifetime) from \(headers)")
        let entry = HTTPCache.Entry(
            statusCode: statusCode,
            headers: headers,
            body: Data(input.rest()),
            requestDate: responseDate.addingTimeInterval(-1),
            responseDate: responseDate,
            secondaryKey: nil
        )
        let age = CacheRules.currentAge(of: entry, now: responseDate.addingTimeInterval(5))
        require(age >= 5 && !age.isNaN, "age \(age) from \(headers)")
        let assessment = CacheRules.Assessment(entry, now: responseDate.addingTimeInterval(5))
        let rules = RequestCacheRules(headers: ["Cache-Control": headers[.cacheControl] ?? ""])
        _ = assessment.isServable(for: rules)
        _ = assessment.isServableWhileRevalidating(for: rules)
        _ = assessment.isServableOnError(for: rules)
        _ = CacheRules.isStorable(
            method: .get,
            statusCode: statusCode,
            headers: headers,
            control: control,
            request: rules
        )
        require(
            DiskCacheStorage.decode(DiskCacheStorage.encode([entry])) == [entry],
            "an entry did not round-trip through the disk format"
        )
        _ = DiskCacheStorage.decode(entry.body)
        let base = URL(string: "https://api.test/v1/items?page=1")
        if let next = try? LinkHeader.target(of: "next", in: headers, relativeTo: base) {
            require(next.scheme != nil, "a next link that is not absolute: \(next)")
        }
    }
}
