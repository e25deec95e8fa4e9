import CMicroHTTPD
import Foundation
import Synchronization

/// The certificate and key files a TLS server answers with (`--tls-cert`, `--tls-key`): PEM, the chain
/// leaf first.
public struct TLSFiles: Sendable, Hashable {
    public var certificate: String
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }
}

/// The pair every handshake is answered with, swapped without a restart: ``reload()`` (on SIGHUP) reads
/// the files again, ``reloadIfChanged()`` (every 10 s, from the server) when their size, time or inode changed. A pair that
/// does not load (unreadable, not PEM, a key that is not the certificate's, expired) is refused and the one
/// in use keeps serving. One per process: GnuTLS's callback carries no context of ours.
public final class TLSCertificates: Sendable {
    public static let shared = TLSCertificates()

    private struct State {
        var files: TLSFiles?
        var stamp: [String] = []
        var current: TLSIdentity?
        /// Pairs replaced, kept until no handshake can still be using them.
        var retired: [(identity: TLSIdentity, since: ContinuousClock.Instant)] = []
    }

    private let state = Mutex(State())
    /// How long a replaced pair is kept: a handshake holds it for at most the receive timeout.
    static let retiredFor: Duration = .seconds(120)

    /// Loads `files` and answers handshakes with them from now on. - Returns: one line saying what is served.
    @discardableResult
    public func install(_ files: TLSFiles) throws(TLSLoadError) -> String {
        let (identity, stamp) = try Self.load(files)
        let replaced = state.withLock { state -> TLSIdentity? in
            defer {
                state.files = files
                state.stamp = stamp
                state.current = identity
            }
            return state.current
        }
        retire(replaced)
        return Self.serving(files, identity)
    }

    /// Reads the files again. - Returns: one line: what is served now, or why the new pair was refused
    /// (the old one serving on).
    public func reload() -> String? {
        guard let files = state.withLock({ $0.files }) else { return nil }
        do {
            return try install(files)
        } catch {
            return "\(error.description); still serving the certificate loaded before"
        }
    }

    /// Reloads when either file changed since it was loaded. - Returns: the line to log, if anything changed.
    public func reloadIfChanged() -> String? {
        let (files, stamp) = state.withLock { ($0.files, $0.stamp) }
        guard let files, Self.stamp(files) != stamp else { return nil }
        // Remembered even when refused, so a broken file is said once, not at every check.
        let line = reload()
        state.withLock { $0.stamp = Self.stamp(files) }
        return line
    }

    /// When the served certificate stops being valid.
    public var expires: Date? { state.withLock { $0.current?.expires } }

    private func retire(_ identity: TLSIdentity?) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.retired.removeAll { now - $0.since > Self.retiredFor }
            if let identity { state.retired.append((identity, now)) }
        }
    }

    /// The pair for a handshake, or `nil` before one is installed.
    fileprivate var current: TLSIdentity? { state.withLock { $0.current } }

    private static func stamp(_ files: TLSFiles) -> [String] {
        [files.certificate, files.key].map { path in
            var info = stat()
            guard stat(path, &info) == 0 else { return "missing" }
            return "\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
    }

    private static func load(_ files: TLSFiles) throws(TLSLoadError) -> (TLSIdentity, [String]) {
        let stamp = stamp(files)
        func read(_ path: String, _ what: String) throws(TLSLoadError) -> Data {
            // A certificate chain or key is a few kilobytes: anything past 1 MiB is not one.
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw TLSLoadError(message: "tls: the \(what) \(path) cannot be read (\(String(cString: strerror(errno))))")
            }
            defer { try? handle.close() }
            guard let data = try? handle.read(upToCount: 1 << 20), !data.isEmpty else {
                throw TLSLoadError(message: "tls: the \(what) \(path) is empty or cannot be read")
            }
            return data
        }
        let certificate = try read(files.certificate, "certificate file")
        let key = try read(files.key, "key file")
        do {
            return (try TLSIdentity(certificatePEM: certificate, keyPEM: key), stamp)
        } catch {
            throw TLSLoadError(message: "tls: \(files.certificate) and \(files.key): \(error.description)")
        }
    }

    private static func serving(_ files: TLSFiles, _ identity: TLSIdentity) -> String {
        let formatter = ISO8601DateFormatter()
        return "tls: serving \(files.certificate) (\(identity.count) certificate\(identity.count == 1 ? "" : "s"), "
            + "valid until \(formatter.string(from: identity.expires)))"
    }
}

/// Why TLS cannot start or a new pair was refused: one line naming the file and the cause.
public struct TLSLoadError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// GnuTLS asks for the certificate at each handshake: the pair installed now. The identity stays alive for
/// ``TLSCertificates/retiredFor`` after a newer one replaces it, longer than any handshake takes.
func tlsCertificateForHandshake(
    _ session: gnutls_session_t?, _ requestedAuthorities: UnsafePointer<gnutls_datum_t>?, _ authorities: Int32,
    _ algorithms: UnsafePointer<gnutls_pk_algorithm_t>?, _ algorithmCount: Int32,
    _ certificates: UnsafeMutablePointer<UnsafeMutablePointer<gnutls_pcert_st>?>?,
    _ count: UnsafeMutablePointer<UInt32>?, _ key: UnsafeMutablePointer<gnutls_privkey_t?>?
) -> Int32 {
    guard let identity = TLSCertificates.shared.current, let certificates, let count, let key else { return -1 }
    certificates.pointee = identity.certificates
    count.pointee = identity.count
    key.pointee = identity.key
    return 0
}
