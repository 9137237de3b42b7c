#if OpenAPI
import OpenAPIKit

extension OperationPlanner {
    /// The next-page rule the description shows for an operation: a `Link` header on a success response, a list
    /// with `has_more` and `data` fetched with a `starting_after` query item (Stripe), or numbered pages with
    /// `page` and `pages` fetched with a `page` query item (Linode).
    func paging(
        _ operation: OpenAPI.Operation,
        response type: String,
        arguments: [OperationPlan.Argument]
    ) -> OperationPlan.Paging? {
        if declaresLinkHeader(operation) { return .link }
        guard case .object(let list) = schemas.declarations[type] else { return nil }
        let query = Set(arguments.filter { [.query, .deepQuery, .joinedQuery].contains($0.place) }.map(\.key))
        func property(_ key: String, type: String? = nil) -> ObjectModel.Property? {
            list.properties.first { $0.key == key && (type == nil || $0.type == type) }
        }
        if query.contains("starting_after"), let hasMore = property("has_more", type: "Bool"),
            let data = property("data"), data.type.hasPrefix("["), !data.type.contains(":"),
            case .object(let element) = schemas.declarations[String(data.type.dropFirst().dropLast())],
            let id = element.properties.first(where: { $0.key == "id" && $0.type == "String" })
        {
            let hasMoreTest = hasMore.isOptional ? "$0.\(hasMore.name) == true" : "$0.\(hasMore.name)"
            let dataRead = data.isOptional ? "$0.\(data.name)?.last?.\(id.name)" : "$0.\(data.name).last?.\(id.name)"
            return .cursorAfterLast(parameter: "starting_after", hasMore: hasMoreTest, data: dataRead, id: id.name)
        }
        if query.contains("page"), let page = property("page", type: "Int"), let pages = property("pages", type: "Int")
        {
            let read = { (property: ObjectModel.Property) in
                property.isOptional ? "($0.value.\(property.name) ?? 1)" : "$0.value.\(property.name)"
            }
            return .pageNumber(parameter: "page", page: read(page), pages: read(pages))
        }
        return nil
    }

    private func declaresLinkHeader(_ operation: OpenAPI.Operation) -> Bool {
        operation.responses.contains { status, value in
            guard status.isSuccess, let response = document.components[value] else { return false }
            return (response.headers ?? [:]).keys.contains { $0.lowercased() == "link" }
        }
    }
}
#endif
