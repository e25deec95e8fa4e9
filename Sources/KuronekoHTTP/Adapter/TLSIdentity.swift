import CMicroHTTPD
import Foundation
import Synchronization

/// A certificate chain (leaf first) and its private key, parsed by GnuTLS into the form a handshake uses.
/// Owns its GnuTLS objects and frees them when released.
final class TLSIdentity: @unchecked Sendable {
    // @unchecked Sendable: written once in `init`, then only read (by handshakes, through raw pointers).
    let certificates: UnsafeMutablePointer<gnutls_pcert_st>
    let count: UInt32
    let key: gnutls_privkey_t
    /// When the leaf certificate stops being valid.
    let expires: Date

    /// The most certificates a chain may hold.
    static let chainLimit = 16

    /// Parses PEM text; the key must be the leaf certificate's, the leaf valid now.
    init(certificatePEM: Data, keyPEM: Data, now: Date = Date()) throws(TLSIdentityError) {
        let certificates = UnsafeMutablePointer<gnutls_pcert_st>.allocate(capacity: Self.chainLimit)
        var count = UInt32(Self.chainLimit)
        let imported = certificatePEM.withUnsafeBytes { bytes -> Int32 in
            var datum = gnutls_datum_t(
                data: UnsafeMutablePointer(mutating: bytes.bindMemory(to: UInt8.self).baseAddress),
                size: UInt32(bytes.count))
            return gnutls_pcert_list_import_x509_raw(certificates, &count, &datum, GNUTLS_X509_FMT_PEM, 0)
        }
        guard imported == 0, count > 0 else {
            certificates.deallocate()
            throw .certificate(Self.words(imported))
        }
        var key: gnutls_privkey_t?
        gnutls_privkey_init(&key)
        let keyed = keyPEM.withUnsafeBytes { bytes -> Int32 in
            var datum = gnutls_datum_t(
                data: UnsafeMutablePointer(mutating: bytes.bindMemory(to: UInt8.self).baseAddress),
                size: UInt32(bytes.count))
            return gnutls_privkey_import_x509_raw(key, &datum, GNUTLS_X509_FMT_PEM, nil, 0)
        }
        guard keyed == 0, let key else {
            Self.free(certificates, count: count)
            if let key { gnutls_privkey_deinit(key) }
            throw .key(Self.words(keyed))
        }
        self.certificates = certificates
        self.count = count
        self.key = key
        var crt: gnutls_x509_crt_t?
        gnutls_x509_crt_init(&crt)
        var leaf = certificates[0].cert
        if gnutls_x509_crt_import(crt, &leaf, GNUTLS_X509_FMT_DER) == 0 {
            expires = Date(timeIntervalSince1970: TimeInterval(gnutls_x509_crt_get_expiration_time(crt)))
        } else {
            expires = .distantPast
        }
        gnutls_x509_crt_deinit(crt)
        // From here `deinit` frees what was made, whichever check refuses the pair.
        guard Self.publicKey(of: key) == Self.publicKey(of: certificates[0].pubkey), Self.publicKey(of: key) != nil
        else { throw .mismatch }
        guard expires > now else { throw .expired(expires) }
    }

    deinit {
        Self.free(certificates, count: count)
        gnutls_privkey_deinit(key)
    }

    private static func free(_ certificates: UnsafeMutablePointer<gnutls_pcert_st>, count: UInt32) {
        for index in 0..<Int(count) { gnutls_pcert_deinit(&certificates[index]) }
        certificates.deallocate()
    }

    /// The DER encoding of a public key, to compare the key's with the certificate's.
    private static func publicKey(of key: gnutls_pubkey_t?) -> Data? {
        guard let key else { return nil }
        var out = gnutls_datum_t()
        guard gnutls_pubkey_export2(key, GNUTLS_X509_FMT_DER, &out) == 0, let data = out.data else { return nil }
        defer { kuroneko_gnutls_free(data) }
        return Data(bytes: data, count: Int(out.size))
    }

    private static func publicKey(of key: gnutls_privkey_t) -> Data? {
        var pub: gnutls_pubkey_t?
        gnutls_pubkey_init(&pub)
        defer { gnutls_pubkey_deinit(pub) }
        guard gnutls_pubkey_import_privkey(pub, key, 0, 0) == 0 else { return nil }
        return publicKey(of: pub)
    }

    private static func words(_ code: Int32) -> String {
        gnutls_strerror(code).map { String(cString: $0) } ?? "GnuTLS error \(code)"
    }
}

/// Why a certificate and key were refused, in words for one line.
enum TLSIdentityError: Error, Sendable, CustomStringConvertible {
    case certificate(String)
    case key(String)
    case mismatch
    case expired(Date)

    var description: String {
        switch self {
        case .certificate(let why): "the certificate is not a PEM certificate chain (\(why))"
        case .key(let why): "the key is not a PEM private key (\(why))"
        case .mismatch: "the key is not the certificate's (the first certificate of the file must be the server's)"
        case .expired(let date): "the certificate expired on \(ISO8601DateFormatter().string(from: date))"
        }
    }
}
