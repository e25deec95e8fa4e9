import Foundation
import KuronekoNotify
import KuronekoCrypto

/// A signed-in browser's session: a random token in a cookie the page's scripts cannot read (`HttpOnly`), sent
/// only over https (`Secure`) and only with requests from the page's own site (`SameSite=Strict`), stored hashed;
/// and a second random token, the CSRF token, that the page sends in a header with every request that changes
/// something (a site that makes the browser send the cookie cannot read it).
public enum SessionCookie {
    public static let name = "kuroneko_session"
    public static let csrfHeader = "x-csrf-token"
    /// A session ends this long after its last use, and in any case this long after sign-in.
    public static let idleLifetime: TimeInterval = 14 * 86_400
    public static let longestLifetime: TimeInterval = 90 * 86_400

    /// A new token: 32 random bytes as hex.
    public static func newToken() -> String { Secrets.random(bytes: 32) }

    /// The token as stored.
    public static func stored(_ token: String) -> Data { Secrets.sha256(token) }

    /// `Set-Cookie` for a new session; `secure` false only for a server on plain http at a loopback address (a
    /// browser does not keep a `Secure` cookie from http).
    public static func setting(_ token: String, secure: Bool) -> String {
        "\(name)=\(token); Path=/; Max-Age=\(Int(longestLifetime)); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// `Set-Cookie` that ends the session in the browser.
    public static func clearing(secure: Bool) -> String {
        "\(name)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The session token a `Cookie` header carries, if any (the first of that name; a token of another shape is none).
    public static func token(inCookieHeader header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0] == name else { continue }
            let value = String(pair[1])
            return value.count == 64 && value.allSatisfy(\.isHexDigit) ? value : nil
        }
        return nil
    }

    /// Whether a request's CSRF header matches the session's token (compared in constant time).
    public static func csrfMatches(_ sent: String?, expected: String) -> Bool {
        guard let sent, !expected.isEmpty else { return false }
        return Secrets.constantTimeEqual(Data(sent.utf8), Data(expected.utf8))
    }

    /// Whether a method changes something (and so needs the CSRF token).
    public static func changes(_ method: String) -> Bool {
        !["GET", "HEAD", "OPTIONS"].contains(method.uppercased())
    }
}
