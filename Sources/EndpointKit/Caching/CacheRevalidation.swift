/// `stale-while-revalidate` (RFC 5861 §3): the stale response is served at once, and the call is made again in
/// the background, once per key at a time, along the same path as a foreground call (middleware, throttle,
/// retries, observers, the redirect policy, the cache step, which freshens or replaces the entry). Its result goes
/// to the cache and the observers, never to a caller.
///
/// The run belongs to the client: its ``TaskOwner`` cancels it when the last copy of the client goes.
extension CacheStep {
    /// Starts `run` in a task `owner` keeps, unless a revalidation of this key is under way already (or the
    /// owner is gone).
    func revalidateInBackground(owner: TaskOwner.Reference, run: @escaping @Sendable () async -> Void) {
        guard let owner = owner.owner, cache.beginBackgroundRevalidation(of: key) else { return }
        let (cache, key) = (self.cache, self.key)
        owner.run {
            defer { cache.endBackgroundRevalidation(of: key) }
            await run()
        }
    }
}

extension Pipeline {
    /// Runs `prepared` again through the whole pipeline, asking the server whatever the cache holds (a
    /// conditional request when a validator is stored): what a background revalidation sends.
    func revalidate(_ prepared: PreparedCall, body: ResponseBodyHandling) async {
        var call = prepared
        call.options.cacheDirectives.noCache = true
        _ = try? await run(call, body: body)
    }
}
