/// What makes two loads of a ``ModelLoader`` the same one: the request they send, or, for a loader with a
/// loading function of its own, the ID compared exactly.
enum LoadKey<ID: Hashable & Sendable>: Hashable, Sendable {
    /// The method and the URL, percent-encoded: ASCII, so `String` equality is byte equality.
    case request(method: String, url: String)
    /// The ID, equal by `==` and printing the same Unicode scalars, so canonically equivalent strings differ.
    case id(ID, scalars: [UInt32])

    /// The key for `id` itself, compared exactly.
    init(exactly id: ID) {
        self = .id(id, scalars: String(describing: id).unicodeScalars.map(\.value))
    }
}

extension LoadKey {
    /// The key as text, for a persistence's file name (which hashes it: a URL may hold a secret query value).
    var persistenceName: String {
        switch self {
        case .request(let method, let url): "\(method) \(url)"
        case .id(_, let scalars): "id " + scalars.map(String.init).joined(separator: ",")
        }
    }
}
