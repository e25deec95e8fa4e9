import Foundation

/// The API described in OpenAPI 3.1, served at `GET /openapi.json`: the file `Assets/openapi.json`, compiled
/// into the binary by the EmbedWebAssets plugin. Tests check that every route and every status the server
/// answers is described there, and that every response matches its schemas.
enum OpenAPIDocument {
    static let json: Data =
        EmbeddedAssets.files.first { $0.path == "openapi.json" }.flatMap { Data(base64Encoded: $0.base64) } ?? Data()
}
