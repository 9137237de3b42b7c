import EndpointKitTesting
import Foundation
import Testing

@testable import EndpointKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A model with a date and a two-word property, for a client whose decoder reads ISO 8601 dates and snake_case keys.
private struct Note: Codable, Sendable, Identifiable, Equatable {
    var id: Int
    var createdAt: Date
    var title: String
}

/// Both disk stores open whatever they find: damage is repaired and reported, never a start-up that fails forever.
@Suite(.timeLimit(.minutes(1))) struct PrivateDirectoryTests {
    enum Store: String, CaseIterable {
        case cache, models

        /// Opens the store in `folder`; returns its repairs.
        func open(_ folder: URL) throws -> [String] {
            switch self {
            case .cache: try DiskCacheStorage(directory: folder).repairs
            case .models: try DiskModelPersistence(directory: folder).repairs
            }
        }

        var dataFolder: String { self == .cache ? "v1/entries" : "v1/models" }
    }

    func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ek-repair-\(UUID().uuidString)")
    }

    @Test(
        "A key file cut short is replaced, the entries it keyed are removed, and the repair is reported",
        arguments: Store.allCases
    )
    func truncatedKeyFile(store: Store) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try store.open(folder)
        let secret = folder.appendingPathComponent("v1/secret")
        try Data(try Data(contentsOf: secret).prefix(5)).write(to: secret)
        try Data("orphan".utf8).write(to: folder.appendingPathComponent("\(store.dataFolder)/orphan"))

        let repairs = try store.open(folder)

        #expect(repairs.count == 1 && repairs[0].contains("5 bytes of 32"), "\(repairs)")
        #expect(try Data(contentsOf: secret).count == 32)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(store.dataFolder).path)
                .isEmpty
        )
        #expect(try store.open(folder).isEmpty, "a repaired directory opens clean")
    }

    @Test("A key file that is a folder, and a data folder that is a file, are replaced", arguments: Store.allCases)
    func wrongKinds(store: Store) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("v1/secret"),
            withIntermediateDirectories: true
        )
        try Data("not a folder".utf8).write(to: folder.appendingPathComponent(store.dataFolder))

        let repairs = try store.open(folder)

        #expect(repairs.count == 2, "\(repairs)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("v1/secret")).count == 32)
        #expect(try store.open(folder).isEmpty)
    }

    @Test(
        "A directory that cannot be made (under a file) fails as invalidRequest, naming it",
        arguments: Store.allCases
    )
    func unusableDirectory(store: Store) throws {
        let file = temporaryFolder()
        try Data("a file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let folder = file.appendingPathComponent("store")

        let error = try #require(throws: EndpointError.self) { try store.open(folder) }

        #expect(error.kind == .invalidRequest)
        #expect(error.message.contains(folder.path))
    }

    @Test("Persisted models round-trip whatever the client's decoder expects: ISO 8601 dates and snake_case keys")
    func persistenceRoundTrip() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let transport = StubTransport { _ in
            .json(#"{"id": 7, "created_at": "2026-11-25T10:00:00Z", "title": "kept"}"#)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let client = EndpointClient(
            environment: Fixture.environment,
            transport: transport,
            defaults: RequestDefaults(decoder: decoder),
            cache: nil
        )
        let endpoint: @Sendable (Int) -> Endpoint<EndpointKinds.Public, Note> = { Endpoint(path: "notes/\($0)") }
        let first = ModelLoader<Note>(
            client: client,
            persistence: try DiskModelPersistence(directory: folder),
            endpoint: endpoint
        )
        let loaded = try await first.loadModel(withID: 7)

        let later = ModelLoader<Note>(
            client: client,
            persistence: try DiskModelPersistence(directory: folder),
            endpoint: endpoint
        )

        #expect(later.store.value(for: .request(method: "GET", url: "https://api.test/v1/notes/7")) == loaded)
    }
}
