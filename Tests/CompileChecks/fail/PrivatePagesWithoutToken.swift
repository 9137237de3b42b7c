// expected-error: requires the types 'AccessToken' and '(Void|\(\))' be equivalent
import EndpointKit

func privatePagesWithoutToken() async throws {
    for try await page in client.pages(for: .search(for: "swift"), next: .link) { print(page.value) }
}
