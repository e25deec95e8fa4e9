import Foundation
import Kuroneko

/// The API described in OpenAPI 3.1, served at `GET /openapi.json`: the file `Assets/openapi.json`, compiled
/// into the binary by the EmbedWebAssets plugin, with the one `Carrier` schema's enum filled from the
/// carrier registry (so a carrier added in its folder is described without editing the file). Tests check
/// that every route and every status the server answers is described there, and that every response matches
/// its schemas.
enum OpenAPIDocument {
    static let json: Data = {
        let file =
            EmbeddedAssets.files.first { $0.path == "openapi.json" }.flatMap { Data(base64Encoded: $0.base64) } ?? Data()
        guard var document = (try? JSONSerialization.jsonObject(with: file)) as? [String: Any],
            var components = document["components"] as? [String: Any],
            var schemas = components["schemas"] as? [String: Any],
            var carrier = schemas["Carrier"] as? [String: Any]
        else { return file }
        carrier["enum"] = Carrier.allCases.map(\.rawValue)
        schemas["Carrier"] = carrier
        components["schemas"] = schemas
        document["components"] = components
        return (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? file
    }()
}

/// `GET /v1/carriers`: what the web app and other clients learn of each carrier from the registry.
struct CarrierInfo: Encodable {
    let id: String
    let name: String
    let englishName: String
    let numberForms: String
    let trackingLink: LinkTemplate
    let redeliveryLink: LinkTemplate?
    let colors: [String: String]

    init(_ definition: CarrierDefinition) {
        id = definition.carrier.rawValue
        name = definition.name
        englishName = definition.englishName
        numberForms = definition.numberFormsInWords
        trackingLink = definition.trackingLink
        redeliveryLink = definition.redeliveryLink
        colors = ["background": definition.colors.background, "text": definition.colors.text]
    }

    enum CodingKeys: String, CodingKey {
        case id, name, colors
        case englishName = "english_name"
        case numberForms = "number_forms"
        case trackingLink = "tracking_link"
        case redeliveryLink = "redelivery_link"
    }

    static let all = ["carriers": CarrierRegistry.definitions.map(CarrierInfo.init)]
}
