import Foundation
import KuronekoCrypto

/// The stop link's token: the shop (owner) and the recipient's address as a hash, signed with the server's
/// key, so the link works without an account, names no address, and cannot be made for another address.
public enum NoticeStop {
    /// The address as kept in the stop list: SHA-256 of its lower-case form, in hex.
    public static func addressHash(_ address: String) -> String {
        Secrets.sha256(address.lowercased()).map { String(format: "%02x", $0) }.joined()
    }

    public static func token(owner: String, address: String, key: String) -> String {
        let hash = addressHash(address)
        let owned = Base64URL.encode(Data(owner.utf8))
        return "s1.\(owned).\(hash).\(signature(owned, hash, key: key))"
    }

    /// The owner and address hash a token names, or `nil` for one this server did not sign.
    public static func read(_ token: String, key: String) -> (owner: String, addressHash: String)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard token.utf8.count <= 512, parts.count == 4, parts[0] == "s1", parts[2].count == 64,
            let ownerData = Base64URL.decode(parts[1]), let owner = String(data: ownerData, encoding: .utf8),
            Secrets.constantTimeEqual(Data(parts[3].utf8), Data(signature(parts[1], parts[2], key: key).utf8))
        else { return nil }
        return (owner, parts[2])
    }

    private static func signature(_ owner: String, _ hash: String, key: String) -> String {
        String(Secrets.hmacSHA256(key: key, message: Data("stop|\(owner)|\(hash)".utf8)).prefix(32))
    }
}
