import CCrypto
import Foundation
import KuronekoCrypto

/// Passwords kept as scrypt hashes (RFC 7914, through OpenSSL's EVP_PBE_scrypt): `scrypt$N$r$p$salt$hash`, the
/// salt 16 random bytes and the hash 32, both base64url. N = 2^15, r = 8, p = 1 by default: 32 MiB and about a
/// tenth of a second on one core, a cost each guess pays too. Hashing blocks: call it off the cooperative pool.
public enum Passwords {
    public struct Parameters: Sendable, Hashable {
        public var logN: Int
        public var r: Int
        public var p: Int

        public init(logN: Int = 15, r: Int = 8, p: Int = 1) {
            self.logN = logN
            self.r = r
            self.p = p
        }

        /// The memory one hash takes, in bytes (128 · N · r · p).
        public var memory: Int { 128 * (1 << logN) * r * p }
    }

    /// The documented bounds of a password: at least 8 characters, at most ``longestBytes`` bytes.
    public static let shortest = 8
    /// The longest password, in bytes of UTF-8: one rule for making one (the command line, an invitation) and for
    /// signing in with it, so a password that was taken can always be given (50 emoji of 25 bytes each are not).
    public static let longestBytes = 1_024

    /// Why a password is refused, in one line; `nil` for one that is taken.
    public static func problem(_ password: String) -> String? {
        if password.count < shortest { return "is \(password.count) characters long; at least \(shortest)" }
        if password.utf8.count > longestBytes {
            return "is \(password.utf8.count) bytes long in UTF-8; at most \(longestBytes) (about 340 Japanese characters)"
        }
        if password.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "holds a control character"
        }
        return nil
    }

    /// The stored form of `password`.
    public static func hash(_ password: String, parameters: Parameters = Parameters()) -> String? {
        var salt = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&salt, Int32(salt.count)) == 1, let derived = derive(password, salt: salt, parameters)
        else { return nil }
        return "scrypt$\(parameters.logN)$\(parameters.r)$\(parameters.p)$"
            + Base64URL.encode(Data(salt)) + "$" + Base64URL.encode(Data(derived))
    }

    /// Whether `password` is the one `stored` was made from (compared in constant time); a stored form this
    /// program did not write is never a match.
    public static func verify(_ password: String, stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let logN = Int(parts[1]), (10...20).contains(logN),
            let r = Int(parts[2]), (1...32).contains(r), let p = Int(parts[3]), (1...16).contains(p),
            let salt = Base64URL.decode(parts[4]), let expected = Base64URL.decode(parts[5]), expected.count == 32,
            password.utf8.count <= longestBytes,
            let derived = derive(password, salt: [UInt8](salt), Parameters(logN: logN, r: r, p: p))
        else { return false }
        return Secrets.constantTimeEqual(Data(derived), expected)
    }

    private static func derive(_ password: String, salt: [UInt8], _ parameters: Parameters) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: 32)
        let bytes = Array(password.utf8)
        let ok = EVP_PBE_scrypt(
            bytes, bytes.count, salt, salt.count, UInt64(1 << parameters.logN), UInt64(parameters.r),
            UInt64(parameters.p), UInt64(parameters.memory + 1_048_576), &output, output.count)
        return ok == 1 ? output : nil
    }
}
