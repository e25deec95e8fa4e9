import CCrypto
import Foundation
import KuronekoCrypto

/// The keys of a browser's push subscription (`PushSubscription.toJSON().keys`): its P-256 public point
/// (`p256dh`) and its 16-byte authentication secret (`auth`).
public struct PushSubscriptionKeys: Sendable, Hashable {
    public let p256dh: Data
    public let auth: Data

    public init(p256dh: Data, auth: Data) throws(PushCryptoError) {
        guard p256dh.count == 65, p256dh.first == 0x04 else { throw .invalidPublicKey }
        guard auth.count == 16 else { throw .invalidAuthSecret }
        self.p256dh = p256dh
        self.auth = auth
    }

    /// From the subscription's base64url strings.
    public init(p256dh: String, auth: String) throws(PushCryptoError) {
        guard let point = Base64URL.decode(p256dh) else { throw .invalidPublicKey }
        guard let secret = Base64URL.decode(auth) else { throw .invalidAuthSecret }
        try self.init(p256dh: point, auth: secret)
    }
}

/// Message encryption for Web Push (RFC 8291) in the `aes128gcm` content coding (RFC 8188), one record: the
/// body is the coding's header (salt, record size, the sender's public key) and the sealed message.
public enum WebPushEncryption {
    /// The record size written in the header; one record holds the whole message.
    public static let recordSize: UInt32 = 4_096
    /// The longest message that fits one record (the record's delimiter and the tag take 17 bytes).
    public static let maximumPlaintext = Int(recordSize) - 17

    /// Encrypts `plaintext` to the subscription.
    /// - Parameters:
    ///   - sender: the sender's one-time key pair; a new one by default (given in tests, to match RFC 8291's
    ///     worked example).
    ///   - salt: 16 random bytes by default.
    public static func encrypt(
        _ plaintext: Data, to keys: PushSubscriptionKeys, sender senderKeys: P256KeyPair? = nil, salt: Data? = nil
    ) throws(PushCryptoError) -> Data {
        guard plaintext.count <= maximumPlaintext else { throw .encryption }
        let sender: P256KeyPair
        if let given = senderKeys {
            sender = given
        } else {
            sender = try P256KeyPair.generate()
        }
        let salt = salt ?? randomBytes(16)
        guard salt.count == 16 else { throw .encryption }
        let secret = try sender.sharedSecret(with: keys.p256dh)
        let (key, nonce) = try contentKeys(
            secret: secret, auth: keys.auth, receiver: keys.p256dh, sender: sender.publicKey, salt: salt)
        // The last (and only) record ends with the delimiter 0x02, no padding.
        let record = [UInt8](plaintext) + [0x02]
        var sealed = [UInt8](repeating: 0, count: record.count + 16)
        let ok = [UInt8](key).withUnsafeBufferPointer { key in
            [UInt8](nonce).withUnsafeBufferPointer { nonce in
                kuroneko_aes128gcm_seal(key.baseAddress, nonce.baseAddress, record, Int32(record.count), &sealed)
            }
        }
        guard ok == 1 else { throw .encryption }
        var body = salt
        body.append(contentsOf: withUnsafeBytes(of: recordSize.bigEndian) { Array($0) })
        body.append(UInt8(sender.publicKey.count))
        body.append(sender.publicKey)
        body.append(contentsOf: sealed)
        return body
    }

    /// Decrypts a body as the browser does, with its key pair and auth secret (for tests and fakes).
    public static func decrypt(_ body: Data, receiver: P256KeyPair, auth: Data) throws(PushCryptoError) -> Data {
        let bytes = [UInt8](body)
        guard bytes.count > 21 else { throw .decryption }
        let salt = Data(bytes[0..<16])
        let idLength = Int(bytes[20])
        guard idLength == 65, bytes.count >= 21 + idLength + 17 else { throw .decryption }
        let sender = Data(bytes[21..<(21 + idLength)])
        let sealed = Array(bytes[(21 + idLength)...])
        let secret = try receiver.sharedSecret(with: sender)
        let (key, nonce) = try contentKeys(
            secret: secret, auth: auth, receiver: receiver.publicKey, sender: sender, salt: salt)
        var record = [UInt8](repeating: 0, count: sealed.count - 16)
        let ok = [UInt8](key).withUnsafeBufferPointer { key in
            [UInt8](nonce).withUnsafeBufferPointer { nonce in
                kuroneko_aes128gcm_open(key.baseAddress, nonce.baseAddress, sealed, Int32(sealed.count - 16), &record)
            }
        }
        guard ok == 1, let delimiter = record.lastIndex(where: { $0 != 0 }), record[delimiter] == 0x02 else {
            throw .decryption
        }
        return Data(record[..<delimiter])
    }

    /// The content encryption key and nonce: the ECDH secret mixed with the auth secret and both public keys
    /// (RFC 8291 §3.4), then with the salt (RFC 8188 §2.2).
    private static func contentKeys(secret: Data, auth: Data, receiver: Data, sender: Data, salt: Data)
        throws(PushCryptoError) -> (key: Data, nonce: Data)
    {
        guard auth.count == 16 else { throw .invalidAuthSecret }
        let keyInfo = Data("WebPush: info".utf8) + [0x00] + receiver + sender
        let ikm = hkdf(salt: auth, input: secret, info: keyInfo, length: 32)
        let key = hkdf(salt: salt, input: ikm, info: Data("Content-Encoding: aes128gcm".utf8) + [0x00], length: 16)
        let nonce = hkdf(salt: salt, input: ikm, info: Data("Content-Encoding: nonce".utf8) + [0x00], length: 12)
        return (key, nonce)
    }

    /// HKDF-SHA256 (RFC 5869) for at most one block of output.
    static func hkdf(salt: Data, input: Data, info: Data, length: Int) -> Data {
        let pseudorandom = hmac(key: salt, message: input)
        return hmac(key: pseudorandom, message: info + [0x01]).prefix(length)
    }

    static func hmac(key: Data, message: Data) -> Data {
        var output = [UInt8](repeating: 0, count: 32)
        let ok = [UInt8](key).withUnsafeBufferPointer { key in
            [UInt8](message).withUnsafeBufferPointer { bytes in
                kuroneko_hmac_sha256(key.baseAddress, Int32(key.count), bytes.baseAddress, bytes.count, &output)
            }
        }
        precondition(ok == 1, "HMAC-SHA256 does not fail on valid buffers")
        return Data(output)
    }

    static func randomBytes(_ count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&bytes, Int32(count)) == 1, "the system's random source failed")
        return Data(bytes)
    }
}
