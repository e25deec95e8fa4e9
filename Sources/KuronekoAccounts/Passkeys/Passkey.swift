import Foundation
import KuronekoCrypto

/// Passkeys (WebAuthn Level 2), checked by the server: a credential registered by a signed-in member, and an
/// assertion that signs them in. Only what Kuroneko asks for is accepted: ES256 keys (COSE alg -7 on P-256),
/// attestation "none" (the key itself is trusted, not its maker), the user present, this relying party and origin,
/// the challenge it gave. Pure: the challenge, origin and relying party expected are given.
public enum Passkey {
    /// What a ceremony must match.
    public struct Expected: Sendable, Hashable {
        public let challenge: Data
        /// `https://parcels.example.jp` (with the port when not the default one).
        public let origin: String
        /// The host the passkey is bound to: `parcels.example.jp`.
        public let relyingParty: String

        public init(challenge: Data, origin: String, relyingParty: String) {
            self.challenge = challenge
            self.origin = origin
            self.relyingParty = relyingParty
        }
    }

    /// A credential as registered: its id, its public key (an uncompressed P-256 point, 65 bytes), its counter.
    public struct Credential: Sendable, Hashable {
        public let id: Data
        public let publicKey: Data
        public let signCount: UInt32

        public init(id: Data, publicKey: Data, signCount: UInt32) {
            self.id = id
            self.publicKey = publicKey
            self.signCount = signCount
        }
    }

    /// The longest credential id taken (WebAuthn allows up to 1,023 bytes).
    public static let longestID = 1_023

    /// Checks a registration (`navigator.credentials.create`): the client data and the attestation object.
    public static func register(clientDataJSON: Data, attestationObject: Data, expected: Expected) throws(PasskeyError)
        -> Credential
    {
        try checkClientData(clientDataJSON, type: "webauthn.create", expected: expected)
        let object: CBOR
        do {
            let decoded = try CBOR.decode(attestationObject)
            guard decoded.rest.isEmpty else { throw PasskeyError.malformed("the attestation object has bytes after it") }
            object = decoded.item
        } catch let error as CBOR.Malformed {
            throw .malformed(error.description)
        } catch {
            throw .malformed("the attestation object does not read")
        }
        guard let authData = object["authData"]?.data else { throw .malformed("the attestation object has no authData") }
        let header = try AuthenticatorData(authData, expected: expected)
        guard header.flags & 0x40 != 0, authData.count >= 55 else { throw .malformed("the authenticator data holds no credential") }
        let bytes = [UInt8](authData)
        let idLength = Int(bytes[53]) << 8 | Int(bytes[54])
        guard (16...longestID).contains(idLength), bytes.count >= 55 + idLength else {
            throw .malformed("the credential id is not 16 to \(longestID) bytes")
        }
        let id = Data(bytes[55..<55 + idLength])
        let key: CBOR
        do {
            key = try CBOR.decode(Data(bytes[(55 + idLength)...])).item
        } catch {
            throw .malformed("the credential's public key does not read: \(error.description)")
        }
        guard key[1]?.integer == 2, key[3]?.integer == -7, key[-1]?.integer == 1,
            let x = key[-2]?.data, let y = key[-3]?.data, x.count == 32, y.count == 32
        else { throw .unsupportedKey }
        return Credential(id: id, publicKey: Data([4]) + x + y, signCount: header.signCount)
    }

    /// Checks a sign-in (`navigator.credentials.get`) against the stored credential; the new counter. A counter
    /// that does not grow while either side's is above zero is a cloned authenticator, refused.
    public static func verify(
        clientDataJSON: Data, authenticatorData: Data, signature: Data, credential: Credential, expected: Expected
    ) throws(PasskeyError) -> UInt32 {
        try checkClientData(clientDataJSON, type: "webauthn.get", expected: expected)
        let header = try AuthenticatorData(authenticatorData, expected: expected)
        guard let raw = rawSignature(fromDER: signature) else { throw .badSignature }
        let signed = authenticatorData + Secrets.sha256(bytes: clientDataJSON)
        guard P256KeyPair.verify(raw, of: signed, publicKey: credential.publicKey) else { throw .badSignature }
        if header.signCount != 0 || credential.signCount != 0, header.signCount <= credential.signCount {
            throw .replayed
        }
        return header.signCount
    }

    static func checkClientData(_ json: Data, type: String, expected: Expected) throws(PasskeyError) {
        guard json.count <= 4_096, let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
            throw .malformed("the client data is not a JSON object of at most 4 KiB")
        }
        guard object["type"] as? String == type else { throw .wrongType }
        guard let challenge = (object["challenge"] as? String).flatMap(Base64URL.decode),
            Secrets.constantTimeEqual(challenge, expected.challenge)
        else { throw .wrongChallenge }
        guard object["origin"] as? String == expected.origin else { throw .wrongOrigin }
        if object["crossOrigin"] as? Bool == true { throw .wrongOrigin }
    }

    /// The first 37 bytes every authenticator data begins with.
    struct AuthenticatorData {
        let flags: UInt8
        let signCount: UInt32

        init(_ data: Data, expected: Expected) throws(PasskeyError) {
            let bytes = [UInt8](data)
            guard bytes.count >= 37, bytes.count <= 4_096 + longestID else { throw .malformed("the authenticator data is not 37 bytes or more") }
            guard Secrets.constantTimeEqual(Data(bytes[0..<32]), Secrets.sha256(expected.relyingParty)) else {
                throw .wrongRelyingParty
            }
            flags = bytes[32]
            guard flags & 0x01 != 0 else { throw .userNotPresent }
            signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        }
    }

    /// An ECDSA signature in DER (SEQUENCE of two INTEGERs) as r || s, 32 bytes each; `nil` for anything else.
    public static func rawSignature(fromDER der: Data) -> Data? {
        let bytes = [UInt8](der)
        guard bytes.count >= 8, bytes.count <= 72, bytes[0] == 0x30, Int(bytes[1]) == bytes.count - 2 else { return nil }
        var offset = 2
        var parts: [Data] = []
        for _ in 0..<2 {
            guard offset + 2 <= bytes.count, bytes[offset] == 0x02 else { return nil }
            let length = Int(bytes[offset + 1])
            offset += 2
            guard length >= 1, length <= 33, offset + length <= bytes.count else { return nil }
            var integer = Array(bytes[offset..<offset + length])
            offset += length
            if integer.count == 33 {
                guard integer[0] == 0 else { return nil }
                integer.removeFirst()
            }
            parts.append(Data(repeating: 0, count: 32 - integer.count) + Data(integer))
        }
        guard offset == bytes.count else { return nil }
        return parts[0] + parts[1]
    }
}

/// Why a passkey was refused; `code` is the problem's stable reason.
public enum PasskeyError: Error, Sendable, Hashable, CustomStringConvertible {
    case malformed(String)
    case wrongType, wrongChallenge, wrongOrigin, wrongRelyingParty, userNotPresent, unsupportedKey, badSignature, replayed
    case challengeUsed

    public var description: String {
        switch self {
        case .malformed(let why): "the passkey's answer is malformed: \(why)"
        case .wrongType: "the passkey's answer is for another ceremony"
        case .wrongChallenge: "the passkey's answer is not for the challenge this server gave (or it expired); try again"
        case .wrongOrigin: "the passkey's answer comes from another site than this one"
        case .wrongRelyingParty: "the passkey belongs to another site"
        case .userNotPresent: "the authenticator did not confirm a person was present"
        case .unsupportedKey: "only ES256 (P-256) passkeys are taken"
        case .badSignature: "the passkey's signature does not verify"
        case .replayed: "the passkey's counter went back: the authenticator may have been copied"
        case .challengeUsed: "this challenge was answered already (a sign-in sent again); ask for new options"
        }
    }
}

/// Challenges a server gives for a passkey ceremony, signed rather than stored, so any server on the database
/// checks what another gave: 16 random bytes, when it expires, and an HMAC of both and the ceremony's purpose
/// (`signin`, or `register:USER`) under the server's key.
public enum PasskeyChallenge {
    public static let lifetime: TimeInterval = 300

    public static func make(purpose: String, key: String, now: Date) -> Data {
        let random = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        var expiry = UInt64(now.addingTimeInterval(lifetime).timeIntervalSince1970).bigEndian
        let body = random + Data(bytes: &expiry, count: 8)
        return body + mac(body, purpose: purpose, key: key)
    }

    public static func isValid(_ challenge: Data, purpose: String, key: String, now: Date) -> Bool {
        guard challenge.count == 40 else { return false }
        let body = challenge.prefix(24)
        guard Secrets.constantTimeEqual(Data(challenge.suffix(16)), mac(Data(body), purpose: purpose, key: key)) else { return false }
        let expiry = body.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Double(expiry) >= now.timeIntervalSince1970
    }

    static func mac(_ body: Data, purpose: String, key: String) -> Data {
        let hex = Secrets.hmacSHA256(key: key, message: Data("passkey:\(purpose):".utf8) + body)
        return Data(stride(from: 0, to: 32, by: 2).map { index in
            UInt8(hex[hex.index(hex.startIndex, offsetBy: index)..<hex.index(hex.startIndex, offsetBy: index + 2)], radix: 16) ?? 0
        })
    }
}
