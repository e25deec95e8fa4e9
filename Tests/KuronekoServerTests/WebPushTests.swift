import Foundation
import KuronekoNotify
import Testing
import KuronekoCrypto

/// Web Push message encryption (RFC 8291) and VAPID (RFC 8292) through libcrypto.
@Suite("Web Push")
struct WebPushTests {
    // RFC 8291, Appendix A: the keys, salt and message of its worked example, and the body it gives.
    private static let plaintext = "When I grow up, I want to be a watermelon"
    private static let senderPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    private static let senderPublic =
        "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    private static let receiverPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    private static let receiverPublic =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    private static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    private static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    private static let body =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    private static func data(_ text: String) async throws -> Data { try #require(Base64URL.decode(text)) }

    @Test("the worked example of RFC 8291 Appendix A, byte for byte")
    func appendixA() async throws {
        let sender = try await P256KeyPair(privateKey: try Self.data(Self.senderPrivate))
        #expect(Base64URL.encode(sender.publicKey) == Self.senderPublic)
        let keys = try PushSubscriptionKeys(p256dh: Self.receiverPublic, auth: Self.auth)
        let encrypted = try await WebPushEncryption.encrypt(
            Data(Self.plaintext.utf8), to: keys, sender: sender, salt: try Self.data(Self.salt))
        #expect(Base64URL.encode(encrypted) == Self.body)
        let receiver = try await P256KeyPair(privateKey: try Self.data(Self.receiverPrivate))
        #expect(Base64URL.encode(receiver.publicKey) == Self.receiverPublic)
        let decrypted = try await WebPushEncryption.decrypt(try Self.data(Self.body), receiver: receiver, auth: keys.auth)
        #expect(String(decoding: decrypted, as: UTF8.self) == Self.plaintext)
    }

    @Test("a fresh key and salt each time; a changed byte or another key does not decrypt")
    func roundTrips() async throws {
        let receiver = try P256KeyPair.generate()
        let auth = Data((0..<16).map { UInt8($0) })
        let keys = try PushSubscriptionKeys(p256dh: receiver.publicKey, auth: auth)
        let message = Data("配達完了: 3277-5445-9830".utf8)
        let first = try WebPushEncryption.encrypt(message, to: keys)
        let second = try WebPushEncryption.encrypt(message, to: keys)
        #expect(first != second)
        #expect(try WebPushEncryption.decrypt(first, receiver: receiver, auth: auth) == message)
        var changed = first
        changed[changed.count - 3] ^= 0x01
        #expect(throws: PushCryptoError.decryption) {
            try WebPushEncryption.decrypt(changed, receiver: receiver, auth: auth)
        }
        #expect(throws: PushCryptoError.decryption) {
            try WebPushEncryption.decrypt(first, receiver: try P256KeyPair.generate(), auth: auth)
        }
        #expect(throws: PushCryptoError.encryption) {
            try WebPushEncryption.encrypt(Data(count: WebPushEncryption.maximumPlaintext + 1), to: keys)
        }
    }

    @Test("subscription keys that are not a P-256 point and a 16-byte secret are refused")
    func badKeys() {
        #expect(throws: PushCryptoError.invalidPublicKey) { try PushSubscriptionKeys(p256dh: "AAAA", auth: Self.auth) }
        #expect(throws: PushCryptoError.invalidAuthSecret) {
            try PushSubscriptionKeys(p256dh: Self.receiverPublic, auth: "AAAA")
        }
        // 65 bytes starting 0x04, but not on the curve: found when the secret is derived.
        let offCurve = Data([0x04] + [UInt8](repeating: 0x01, count: 64))
        #expect(throws: PushCryptoError.invalidPublicKey) {
            try WebPushEncryption.encrypt(
                Data("x".utf8), to: try PushSubscriptionKeys(p256dh: offCurve, auth: Data(count: 16)))
        }
        #expect(throws: PushCryptoError.invalidPrivateKey) { try P256KeyPair(privateKey: Data(count: 32)) }
    }

    @Test("a VAPID token is an ES256 JWT for the push service's origin, good for at most 24 hours")
    func vapid() async throws {
        let keys = try P256KeyPair.generate()
        let vapid = VAPID(keys: keys, subject: "mailto:ops@example.jp", lifetime: 48 * 3_600)
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let endpoint = try #require(URL(string: "https://push.example.net:8443/wpush/v2/abc?x=1"))
        let header = try vapid.authorization(for: endpoint, now: now)
        let match = try #require(header.firstMatch(of: /^vapid t=([^,]+), k=([A-Za-z0-9_-]+)$/))
        #expect(String(match.2) == Base64URL.encode(keys.publicKey))
        let claims = try #require(
            VAPID.verify(
                String(match.1), publicKey: keys.publicKey, audience: "https://push.example.net:8443", now: now))
        #expect(claims["sub"] as? String == "mailto:ops@example.jp")
        #expect(claims["exp"] as? Int == 1_790_000_000 + 24 * 3_600)
        #expect(
            VAPID.verify(
                String(match.1), publicKey: try P256KeyPair.generate().publicKey,
                audience: "https://push.example.net:8443", now: now) == nil)
        #expect(
            VAPID.verify(String(match.1), publicKey: keys.publicKey, audience: "https://other.example", now: now) == nil
        )
        #expect(
            VAPID.origin(of: try #require(URL(string: "https://fcm.googleapis.com/fcm/send/x")))
                == "https://fcm.googleapis.com")
    }
}
