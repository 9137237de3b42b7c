#if OpenAPI
/// One operation as the static factories the generator writes for it: everything decided, nothing yet written.
struct OperationPlan: Equatable, Sendable {
    /// A parameter of the factory.
    struct Argument: Equatable, Sendable {
        enum Place: Equatable, Sendable {
            case path
            case query
            /// An object sent in the query as `name[key]=value` (OpenAPI's `deepObject` style).
            case deepQuery
            /// A list sent as one query item, its values joined by commas (`form` style with `explode: false`).
            case joinedQuery
            case header
            case cookie
            case body
        }

        /// The name in the description (the query item's or header's name).
        var key: String
        /// The Swift parameter name, unique in the factory.
        var name: String
        /// The Swift type, without the `?` of an optional argument.
        var type: String
        var isOptional: Bool
        var place: Place
        var documentation: String?
    }

    /// How the request body is sent.
    enum Body: Equatable, Sendable {
        case json
        /// A form; `indexed` when a field's encoding is `deepObject`, whose lists are written `name[0]=…`.
        case form(indexed: Bool)
        case multipart
        case data(contentType: String)
    }

    var name: String
    /// The `operationId`, or the method and path when there is none.
    var label: String
    /// `get`, `post`, … (a static member of `HTTPMethod` when it is one of the common methods).
    var method: String
    /// The description's path template, as written (`/pets/{petId}`).
    var path: String
    var arguments: [Argument]
    var body: Body?
    var response: String
    /// The kinds the factory is generated with; two when the security is optional.
    var kinds: [KindReference]
    var scopes: [String]
    var summary: String?
    var isDeprecated: Bool
    /// The error bodies the operation documents, by status (`404`, `4XX`, `default`), in the description's
    /// order: JSON responses outside 2xx.
    var errors: [ErrorBody] = []
    /// The name of the enum of the error bodies, when they are of more than one type: `<Operation>Error`, or that
    /// with a number when a model has the name already (AWS's `BatchDeleteImportDataError`).
    var errorTypeName: String?

    /// The overlay's name and options for this operation, if it names it.
    var settings: Overlay.OperationSettings?

    /// The servers the description names for this operation or its path alone, when they are not the API's.
    var servers: [String] = []

    /// How the next page of the operation's response is found, when the description shows it.
    var paging: Paging?

    /// A rule for the next page, as EndpointKit's `NextPage` has them.
    enum Paging: Equatable, Sendable {
        /// A `Link` header's `rel="next"`, when a success response declares the header.
        case link
        /// Stripe's lists: while `hasMore`, the last element's `id` is sent as the query item `parameter`.
        case cursorAfterLast(parameter: String, hasMore: String, data: String, id: String)
        /// Page numbers in the query item `parameter`, until the page `page` reaches `pages` (`nil`-safe names).
        case pageNumber(parameter: String, page: String, pages: String)
    }

    /// An error body an operation documents for a status.
    struct ErrorBody: Equatable, Sendable {
        /// `404`, `4XX` or `default`.
        var status: String
        var type: String
    }
}
#endif
