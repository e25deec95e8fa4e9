import CCrypto
import Foundation

/// A P-256 key pair as raw bytes: the 32-byte private scalar and the 65-byte uncompressed public point. The
/// OpenSSL objects behind each operation live only for that call (the shim makes and frees them).
public struct P256KeyPair: Sendable, Hashable {
    public let privateKey: Data
    public let publicKey: Data

    /// A new random key pair.
    public static func generate() throws(PushCryptoError) -> P256KeyPair {
        var privateKey = [UInt8](repeating: 0, count: 32)
        var publicKey = [UInt8](repeating: 0, count: 65)
        guard kuroneko_p256_generate(&privateKey, &publicKey) == 1 else { throw .keyGeneration }
        return P256KeyPair(privateKey: Data(privateKey), publicKey: Data(publicKey))
    }

    /// The pair of a private scalar.
    public init(privateKey: Data) throws(PushCryptoError) {
        guard privateKey.count == 32 else { throw .invalidPrivateKey }
        var publicKey = [UInt8](repeating: 0, count: 65)
        let ok = [UInt8](privateKey).withUnsafeBufferPointer { kuroneko_p256_public($0.baseAddress, &publicKey) }
        guard ok == 1 else { throw .invalidPrivateKey }
        self.privateKey = privateKey
        self.publicKey = Data(publicKey)
    }

    private init(privateKey: Data, publicKey: Data) {
        self.privateKey = privateKey
        self.publicKey = publicKey
    }

    /// The ECDH secret with another party's public point.
    public func sharedSecret(with peer: Data) throws(PushCryptoError) -> Data {
        guard peer.count == 65 else { throw .invalidPublicKey }
        var secret = [UInt8](repeating: 0, count: 32)
        let ok = [UInt8](privateKey).withUnsafeBufferPointer { mine in
            [UInt8](peer).withUnsafeBufferPointer { theirs in
                kuroneko_p256_ecdh(mine.baseAddress, theirs.baseAddress, &secret)
            }
        }
        guard ok == 1 else { throw .invalidPublicKey }
        return Data(secret)
    }

    /// An ES256 signature (r || s, 64 bytes) of `message`.
    public func sign(_ message: Data) throws(PushCryptoError) -> Data {
        var signature = [UInt8](repeating: 0, count: 64)
        let ok = [UInt8](privateKey).withUnsafeBufferPointer { key in
            [UInt8](message).withUnsafeBufferPointer { bytes in
                kuroneko_p256_sign(key.baseAddress, bytes.baseAddress, bytes.count, &signature)
            }
        }
        guard ok == 1 else { throw .signing }
        return Data(signature)
    }

    /// Whether `signature` (r || s) signs `message` under `publicKey`.
    public static func verify(_ signature: Data, of message: Data, publicKey: Data) -> Bool {
        guard signature.count == 64, publicKey.count == 65 else { return false }
        return [UInt8](publicKey).withUnsafeBufferPointer { key in
            [UInt8](message).withUnsafeBufferPointer { bytes in
                [UInt8](signature).withUnsafeBufferPointer { sig in
                    kuroneko_p256_verify(key.baseAddress, bytes.baseAddress, bytes.count, sig.baseAddress) == 1
                }
            }
        }
    }
}

/// Why a Web Push key or message could not be made or read.
public enum PushCryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    case keyGeneration, invalidPrivateKey, invalidPublicKey, signing, encryption
    /// The subscription's `auth` secret is not 16 bytes.
    case invalidAuthSecret
    /// A message that does not decrypt (a wrong key, or changed on the way).
    case decryption

    public var description: String {
        switch self {
        case .keyGeneration: "a P-256 key pair could not be made"
        case .invalidPrivateKey: "the private key is not a P-256 scalar of 32 bytes"
        case .invalidPublicKey: "the public key is not an uncompressed P-256 point of 65 bytes"
        case .signing: "the VAPID token could not be signed"
        case .encryption: "the message could not be encrypted"
        case .invalidAuthSecret: "the subscription's auth secret is not 16 bytes"
        case .decryption: "the message does not decrypt with this key"
        }
    }
}
