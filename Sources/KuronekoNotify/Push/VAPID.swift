import Foundation
import KuronekoCrypto

/// Voluntary application server identification (RFC 8292): a short-lived ES256 JWT naming the push
/// service's origin (`aud`), its expiry (`exp`, at most 24 hours ahead) and a contact (`sub`), signed with
/// the server's key pair, sent as `Authorization: vapid t=<JWT>, k=<public key>`.
public struct VAPID: Sendable {
    public let keys: P256KeyPair
    /// `mailto:` or `https:` contact for the push service's operators (`--vapid-subject`).
    public let subject: String
    /// How long a token is good for; RFC 8292 allows at most 24 hours.
    public let lifetime: TimeInterval

    public init(keys: P256KeyPair, subject: String, lifetime: TimeInterval = 12 * 3_600) {
        self.keys = keys
        self.subject = subject
        self.lifetime = min(max(60, lifetime), 24 * 3_600)
    }

    /// The public key as the browser's `applicationServerKey` wants it (base64url of the point).
    public var publicKey: String { Base64URL.encode(keys.publicKey) }

    /// The `Authorization` header for a push to `endpoint` at `now`.
    public func authorization(for endpoint: URL, now: Date) throws(PushCryptoError) -> String {
        "vapid t=\(try token(for: endpoint, now: now)), k=\(publicKey)"
    }

    /// The signed JWT.
    public func token(for endpoint: URL, now: Date) throws(PushCryptoError) -> String {
        let header = Base64URL.encode(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims: [String: Any] = [
            "aud": Self.origin(of: endpoint), "exp": Int(now.timeIntervalSince1970 + lifetime), "sub": subject,
        ]
        guard
            let json = try? JSONSerialization.data(
                withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
        else { throw .signing }
        let signingInput = header + "." + Base64URL.encode(json)
        let signature = try keys.sign(Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// `https://push.example.net` (with a port only when it is not the scheme's own).
    public static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "https"
        let host = url.host ?? ""
        let shownHost = host.contains(":") ? "[\(host)]" : host
        guard let port = url.port, port != (scheme == "https" ? 443 : 80) else { return "\(scheme)://\(shownHost)" }
        return "\(scheme)://\(shownHost):\(port)"
    }

    /// Checks a token as a push service does: its signature under `publicKey`, its audience and expiry.
    /// - Returns: the claims when the token is good, `nil` otherwise.
    public static func verify(_ token: String, publicKey: Data, audience: String, now: Date) -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = Base64URL.decode(String(parts[2])),
            P256KeyPair.verify(signature, of: Data("\(parts[0]).\(parts[1])".utf8), publicKey: publicKey),
            let body = Base64URL.decode(String(parts[1])),
            let claims = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            claims["aud"] as? String == audience, let expiry = claims["exp"] as? Int,
            TimeInterval(expiry) > now.timeIntervalSince1970,
            TimeInterval(expiry) <= now.timeIntervalSince1970 + 24 * 3_600
        else { return nil }
        return claims
    }
}
