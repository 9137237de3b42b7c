#if OpenAPI
extension Overlay {
    /// What the overlay sets for one operation: its factory's name and the endpoint's options.
    ///
    ///     operations:
    ///       getThing:
    ///         name: thing              # the factory's name instead of the operationId's
    ///         cached: false            # options.isCached
    ///         cache: { maxAge: 60, staleIfError: 300 }  # options.cacheDirectives, in seconds
    ///         idempotencyKey: false    # options.isIdempotencyKeyed
    ///         throttled: false         # options.isThrottled
    ///         logged: false            # options.isLogged
    ///         outboxGroup: things/{id} # options.outboxGroup, {…} naming path parameters
    ///
    /// A setting the generator does not know is an error, not ignored: a typo would otherwise change nothing.
    public struct OperationSettings: Decodable, Equatable, Sendable {
        /// The factory's name, instead of the one made from the `operationId`.
        public var name: String?
        /// `options.isCached`: whether the client's HTTP cache may serve or store the responses.
        public var cached: Bool?
        /// `options.cacheDirectives`.
        public var cache: CacheSettings?
        /// `options.isIdempotencyKeyed`: whether the `IdempotencyKey` middleware adds its header.
        public var idempotencyKey: Bool?
        /// `options.isThrottled`: whether `Throttle` counts the request.
        public var throttled: Bool?
        /// `options.isLogged`: whether `ExchangeLogging` reports the request.
        public var logged: Bool?
        /// `options.outboxGroup`: the `Outbox` group a write is queued in when the caller names none; each
        /// `{name}` is the value of the path parameter of that name (`things/{id}`: one group per thing).
        public var outboxGroup: String?

        /// `options.cacheDirectives`, durations in seconds.
        public struct CacheSettings: Decodable, Equatable, Sendable {
            /// Revalidate before using a stored response.
            public var noCache: Bool?
            /// Neither use nor store a response.
            public var noStore: Bool?
            /// Accept a stored response at most this many seconds old.
            public var maxAge: Int?
            /// Accept a stored response up to this many seconds stale.
            public var maxStale: Int?
            /// Accept a stored response only if it stays fresh this many seconds more.
            public var minFresh: Int?
            /// Use only a stored response; never the network.
            public var onlyIfCached: Bool?
            /// Use a stored response up to this many seconds stale when the server fails.
            public var staleIfError: Int?

            /// Reads the directives; a key it does not know is an error.
            public init(from decoder: any Decoder) throws {
                try Overlay.refuseUnknownKeys(in: decoder, known: CodingKeys.self)
                let container = try decoder.container(keyedBy: CodingKeys.self)
                noCache = try container.decodeIfPresent(Bool.self, forKey: .noCache)
                noStore = try container.decodeIfPresent(Bool.self, forKey: .noStore)
                maxAge = try container.decodeIfPresent(Int.self, forKey: .maxAge)
                maxStale = try container.decodeIfPresent(Int.self, forKey: .maxStale)
                minFresh = try container.decodeIfPresent(Int.self, forKey: .minFresh)
                onlyIfCached = try container.decodeIfPresent(Bool.self, forKey: .onlyIfCached)
                staleIfError = try container.decodeIfPresent(Int.self, forKey: .staleIfError)
            }

            private enum CodingKeys: String, CodingKey, CaseIterable {
                case noCache, noStore, maxAge, maxStale, minFresh, onlyIfCached, staleIfError
            }
        }

        /// Reads the settings; a key it does not know is an error.
        public init(from decoder: any Decoder) throws {
            try Overlay.refuseUnknownKeys(in: decoder, known: CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            cached = try container.decodeIfPresent(Bool.self, forKey: .cached)
            cache = try container.decodeIfPresent(CacheSettings.self, forKey: .cache)
            idempotencyKey = try container.decodeIfPresent(Bool.self, forKey: .idempotencyKey)
            throttled = try container.decodeIfPresent(Bool.self, forKey: .throttled)
            logged = try container.decodeIfPresent(Bool.self, forKey: .logged)
            outboxGroup = try container.decodeIfPresent(String.self, forKey: .outboxGroup)
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case name, cached, cache, idempotencyKey, throttled, logged, outboxGroup
        }

        /// The statements that set these options on `endpoint`, in a generated factory.
        var statements: [String] {
            var lines: [String] = []
            if let cached { lines.append("endpoint.options.isCached = \(cached)") }
            if let idempotencyKey { lines.append("endpoint.options.isIdempotencyKeyed = \(idempotencyKey)") }
            if let throttled { lines.append("endpoint.options.isThrottled = \(throttled)") }
            if let logged { lines.append("endpoint.options.isLogged = \(logged)") }
            if let cache {
                var arguments: [String] = []
                if let value = cache.noCache { arguments.append("noCache: \(value)") }
                if let value = cache.noStore { arguments.append("noStore: \(value)") }
                if let value = cache.maxAge { arguments.append("maxAge: .seconds(\(value))") }
                if let value = cache.maxStale { arguments.append("maxStale: .seconds(\(value))") }
                if let value = cache.minFresh { arguments.append("minFresh: .seconds(\(value))") }
                if let value = cache.onlyIfCached { arguments.append("onlyIfCached: \(value)") }
                if let value = cache.staleIfError { arguments.append("staleIfError: .seconds(\(value))") }
                lines.append("endpoint.options.cacheDirectives = CacheDirectives(\(arguments.joined(separator: ", ")))")
            }
            return lines
        }
    }

    /// A key of any name, to list what a YAML mapping holds.
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Throws when the mapping `decoder` reads holds a key `known` does not name.
    static func refuseUnknownKeys<Known: CodingKey & CaseIterable>(in decoder: any Decoder, known: Known.Type) throws {
        let names = Set(Known.allCases.map(\.stringValue))
        let container = try decoder.container(keyedBy: AnyKey.self)
        guard let unknown = container.allKeys.first(where: { !names.contains($0.stringValue) }) else { return }
        throw DecodingError.dataCorruptedError(
            forKey: unknown,
            in: container,
            debugDescription: "the overlay has no setting \"\(unknown.stringValue)\"; known: "
                + names.sorted().joined(separator: ", ")
        )
    }
}
#endif
