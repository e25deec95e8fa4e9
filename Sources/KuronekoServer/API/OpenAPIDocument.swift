import Foundation
import Kuroneko
import KuronekoNotify

/// The API described in OpenAPI 3.1, served at `GET /openapi.json`: the file `Assets/openapi.json`, compiled
/// into the binary by the EmbedWebAssets plugin, with the `Carrier` schema's enum filled from the carrier
/// registry and the `ChannelKind` schema's from the server's channel kinds, and any field of a kind the file
/// does not describe added to `POST /v1/channels` from the kind's field list (so a carrier or a channel kind
/// added in its own file is described without editing the document). Tests check that every route and every
/// status the server answers is described there, and that every response matches its schemas.
enum OpenAPIDocument {
    private static let file =
        EmbeddedAssets.files.first { $0.path == "openapi.json" }.flatMap { Data(base64Encoded: $0.base64) } ?? Data()

    /// The document for a server offering `channelKinds`.
    static func json(channelKinds: ChannelKindRegistry) -> Data {
        guard var document = (try? JSONSerialization.jsonObject(with: file)) as? [String: Any] else { return file }
        document[path: ["components", "schemas", "Carrier", "enum"]] = Carrier.allCases.map(\.rawValue)
        document[path: ["components", "schemas", "ChannelKind", "enum"]] = channelKinds.names
        let properties = ["paths", "/v1/channels", "post", "requestBody", "content", "application/json", "schema",
            "properties"]
        var described = document[path: properties] as? [String: Any] ?? [:]
        for kind in channelKinds.kinds {
            for field in kind.fields where described[field.name] == nil {
                described[field.name] = schema(of: field, kind: kind.name)
            }
        }
        document[path: properties] = described
        return (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? file
    }

    /// A field's schema from its form.
    private static func schema(of field: ChannelField, kind: String) -> [String: Any] {
        let about = "\(kind): \(field.label.english)" + (field.hint.map { " (\($0.english))" } ?? "")
        switch field.form {
        case .list:
            return [
                "description": about,
                "oneOf": [["type": "string"], ["type": "array", "items": ["type": "string"]]],
            ]
        case .subscription:
            return ["type": "object", "description": about]
        case .secret:
            return ["type": "string", "writeOnly": true, "description": about + "; stored, never shown"]
        case .url, .email, .text:
            return ["type": "string", "maxLength": ChannelField.maximumURLLength, "description": about]
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The value at a path of nested objects; setting it makes the objects on the way.
    subscript(path keys: [String]) -> Any? {
        get {
            guard let first = keys.first else { return nil }
            guard keys.count > 1 else { return self[first] }
            return (self[first] as? [String: Any])?[path: Array(keys.dropFirst())]
        }
        set {
            guard let first = keys.first else { return }
            guard keys.count > 1 else {
                self[first] = newValue
                return
            }
            var inner = self[first] as? [String: Any] ?? [:]
            inner[path: Array(keys.dropFirst())] = newValue
            self[first] = inner
        }
    }
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
