import CCrypto
import Foundation

/// Random secrets, hashes and signatures, through OpenSSL's libcrypto.
public enum Secrets {
    /// `count` random bytes from OpenSSL's generator, as lower-case hex; `prefix` in front.
    public static func random(bytes count: Int = 32, prefix: String = "") -> String {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else {
            // The generator failing is not something to carry on from with a weak secret.
            fatalError("OpenSSL's random generator failed")
        }
        return prefix + hex(bytes)
    }

    /// SHA-256 of the text's UTF-8 bytes.
    public static func sha256(_ text: String) -> Data {
        var output = [UInt8](repeating: 0, count: 32)
        let bytes = Array(text.utf8)
        kuroneko_sha256(bytes, bytes.count, &output)
        return Data(output)
    }

    /// SHA-256 of bytes.
    public static func sha256(bytes data: Data) -> Data {
        var output = [UInt8](repeating: 0, count: 32)
        let bytes = [UInt8](data)
        kuroneko_sha256(bytes, bytes.count, &output)
        return Data(output)
    }

    /// HMAC-SHA256 of `message` under `key`, as lower-case hex.
    public static func hmacSHA256(key: String, message: Data) -> String {
        var output = [UInt8](repeating: 0, count: 32)
        let keyBytes = Array(key.utf8)
        let ok = message.withUnsafeBytes { buffer in
            kuroneko_hmac_sha256(
                keyBytes, Int32(keyBytes.count), buffer.bindMemory(to: UInt8.self).baseAddress, buffer.count, &output)
        }
        precondition(ok == 1, "HMAC-SHA256 failed")
        return hex(output)
    }

    /// Equal bytes, compared in time that depends only on the length (CRYPTO_memcmp).
    public static func constantTimeEqual(_ left: Data, _ right: Data) -> Bool {
        guard left.count == right.count else { return false }
        return left.withUnsafeBytes { a in
            right.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
