#if OpenAPI
extension Overlay {
    /// What the overlay sets for one generated model: the member it is identified by.
    ///
    ///     models:
    ///       Region:
    ///         id: slug    # Identifiable, its id the member `slug` (a JSON key or the Swift name)
    ///
    /// A model with a required member `id` of text, an integer or a UUID is `Identifiable` without this; the
    /// setting is for a model whose identifying member has another name. A setting the generator does not know
    /// is an error.
    public struct ModelSettings: Decodable, Equatable, Sendable {
        /// The member whose value identifies the model: what a `ModelLoader` loads it by and keeps it under.
        public var id: String?

        /// Reads the settings; a key it does not know is an error.
        public init(from decoder: any Decoder) throws {
            try Overlay.refuseUnknownKeys(in: decoder, known: CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(String.self, forKey: .id)
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case id
        }
    }

    /// `declarations` with the models' settings applied, and a note for each setting that changes nothing: a
    /// model the module does not declare, or a member that cannot identify it.
    func applyingModelSettings(to declarations: [ModelDeclaration]) -> ([ModelDeclaration], [GenerationNote]) {
        var notes: [GenerationNote] = []
        var result = declarations
        for (name, settings) in (models ?? [:]).sorted(by: { $0.key < $1.key }) {
            func note(_ issue: GenerationIssue) {
                notes.append(GenerationNote(operation: "models.\(name)", issue: issue, operationSkipped: false))
            }
            guard let index = result.firstIndex(where: { $0.objectName == name }),
                case .object(var model) = result[index]
            else {
                note(.overlay("the module declares no object model of that name; its settings change nothing"))
                continue
            }
            guard let id = settings.id else { continue }
            switch model.identifying(by: id) {
            case .success(let identified): model = identified
            case .failure(let issue):
                note(issue)
                continue
            }
            result[index] = .object(model)
        }
        return (result, notes)
    }
}

extension ModelDeclaration {
    /// The type's name when it is an object model.
    var objectName: String? {
        if case .object(let model) = self { return model.name }
        return nil
    }
}

extension ObjectModel {
    /// The model identified by the member `key` (its JSON key or its Swift name), or why it cannot be.
    func identifying(by key: String) -> Result<ObjectModel, GenerationIssue> {
        guard let property = properties.first(where: { $0.key == key || $0.name == key }) else {
            return .failure(.overlay("id: the model has no member \(key)"))
        }
        guard !property.isOptional, Self.identifierTypes.contains(property.type) else {
            return .failure(
                .overlay(
                    "id: \(key) is not a required member of text, an integer or a UUID, so it cannot identify the model"
                )
            )
        }
        if property.name != "id", properties.contains(where: { $0.name == "id" }) {
            return .failure(.overlay("id: the model has a member id of its own; \(key) cannot be its id"))
        }
        var model = self
        model.identifier = property.name
        return .success(model)
    }
}
#endif
