// expected-error: requires the types 'AccessToken' and '(Void|\(\))' be equivalent
import EndpointKit

extension Endpoint where Kind == EndpointKinds.Private, Response == Item {
    static func privateItem(_ id: Item.ID) -> Self { Endpoint(path: "private/items/\(id)") }
}

func privateModelLoaderWithoutToken() {
    _ = ModelLoader<Item>(client: client) { id in .privateItem(id) }
}
