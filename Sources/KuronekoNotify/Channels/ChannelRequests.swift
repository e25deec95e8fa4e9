import Foundation
import Kuroneko

/// One HTTP request to a channel's service: its method (POST, or GET for LINE's quota), headers and body.
/// `guarded` says whether the address guard applies: every address an owner gave does; a service the
/// operator configured (`--line-origin`) does not.
public struct ChannelRequest: Sendable, Hashable {
    public let url: URL
    public let headers: [String: String]
    public let body: Data
    public var method = "POST"
    public var guarded = true

    public init(url: URL, headers: [String: String], body: Data, method: String = "POST", guarded: Bool = true) {
        self.url = url
        self.headers = headers
        self.body = body
        self.method = method
        self.guarded = guarded
    }
}

/// Text helpers the kinds share.
public enum ChannelText {
    static let json = ["Content-Type": "application/json"]

    static func encode(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }

    /// An RFC 2047 encoded word for a header value beyond ASCII (ntfy decodes them); ASCII as it is.
    public static func encodedWord(_ text: String) -> String {
        let clean = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        guard !clean.unicodeScalars.allSatisfy(\.isASCII) else { return clean }
        return "=?UTF-8?B?" + Data(clean.utf8).base64EncodedString() + "?="
    }
}
