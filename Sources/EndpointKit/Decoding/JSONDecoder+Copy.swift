import Foundation

extension JSONDecoder {
    /// A new decoder with the same settings, so that EndpointKit can set `userInfo` without touching the
    /// caller's instance (a `JSONDecoder` is shared by reference).
    func copy() -> JSONDecoder {
        let copy = JSONDecoder()
        copy.dateDecodingStrategy = dateDecodingStrategy
        copy.dataDecodingStrategy = dataDecodingStrategy
        copy.nonConformingFloatDecodingStrategy = nonConformingFloatDecodingStrategy
        copy.keyDecodingStrategy = keyDecodingStrategy
        copy.userInfo = userInfo
        if #available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, *) {
            copy.allowsJSON5 = allowsJSON5
            copy.assumesTopLevelDictionary = assumesTopLevelDictionary
        }
        return copy
    }
}
