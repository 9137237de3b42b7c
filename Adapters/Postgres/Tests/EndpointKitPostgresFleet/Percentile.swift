#if Postgres && AsyncHTTPClient
extension [Int] {
    /// The value at `share` (0.5 for the median) of these values, sorted ascending; 0 for none.
    func percentile(_ share: Double) -> Int {
        isEmpty ? 0 : self[Swift.min(count - 1, Int(Double(count) * share))]
    }
}
#endif
