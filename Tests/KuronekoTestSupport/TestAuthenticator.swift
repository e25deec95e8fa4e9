import Foundation
import KuronekoNotify
import KuronekoCrypto

/// A passkey authenticator for tests: one discoverable credential on P-256, answering registrations (attestation
/// "none") and sign-ins for `kuroneko.test` unless told another site.
public struct TestAuthenticator: Sendable {
    public static let host = "kuroneko.test"
    public let key = try! P256KeyPair.generate()
    public let id = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
    public var count: UInt32 = 0
    /// An authenticator without a counter: every answer says 0 (WebAuthn allows it; only a challenge used once then
    /// stops a captured answer).
    public var counterless = false

    public init(counterless: Bool = false) {
        self.counterless = counterless
    }

    /// An ECDSA signature (r ‖ s) as DER.
    public static func der(_ raw: Data) -> Data {
        func integer(_ bytes: Data) -> Data {
            var trimmed = Data(bytes.drop { $0 == 0 })
            if trimmed.isEmpty { trimmed = Data([0]) }
            if trimmed[trimmed.startIndex] & 0x80 != 0 { trimmed.insert(0, at: 0) }
            return Data([0x02, UInt8(trimmed.count)]) + trimmed
        }
        let body = integer(raw.prefix(32)) + integer(raw.suffix(32))
        return Data([0x30, UInt8(body.count)]) + body
    }

    public func header(flags: UInt8, count: UInt32, site: String = TestAuthenticator.host) -> Data {
        var bigCount = count.bigEndian
        return Secrets.sha256(site) + Data([flags]) + Data(bytes: &bigCount, count: 4)
    }

    public func attestation(site: String = TestAuthenticator.host) -> Data {
        let x = key.publicKey[1..<33], y = key.publicKey[33..<65]
        let cose = Data([0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]) + x + Data([0x22, 0x58, 0x20]) + y
        let authData = header(flags: 0x45, count: count, site: site) + Data(count: 16) + Data([0, UInt8(id.count)]) + id + cose
        return Data([0xA3, 0x63]) + Data("fmt".utf8) + Data([0x64]) + Data("none".utf8) + Data([0x67]) + Data("attStmt".utf8)
            + Data([0xA0, 0x68]) + Data("authData".utf8) + Data([0x59, UInt8(authData.count >> 8), UInt8(authData.count & 0xFF)])
            + authData
    }

    public static func clientData(_ type: String, _ challenge: String, origin: String = "http://\(host)") -> Data {
        Data(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    /// A sign-in's answer to `challenge`, as `POST /v1/session/passkey` takes it.
    public mutating func assertion(_ challenge: String, origin: String = "http://\(host)") -> [String: String] {
        if !counterless { count += 1 }
        let client = Self.clientData("webauthn.get", challenge, origin: origin)
        let authData = header(flags: 0x05, count: count)
        let signature = Self.der(try! key.sign(authData + Secrets.sha256(bytes: client)))
        return [
            "id": Base64URL.encode(id), "client_data": Base64URL.encode(client),
            "authenticator_data": Base64URL.encode(authData), "signature": Base64URL.encode(signature),
        ]
    }
}
