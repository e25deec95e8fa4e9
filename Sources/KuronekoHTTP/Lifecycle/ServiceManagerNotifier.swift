import Foundation

/// Tells the service manager how the server is doing, through the datagram socket systemd names in
/// `NOTIFY_SOCKET` (the `sd_notify` protocol): `READY=1` once it listens, `STOPPING=1` when it drains.
/// Without `NOTIFY_SOCKET` (not started by systemd with `Type=notify`) it does nothing.
public struct ServiceManagerNotifier: Sendable {
    private let socketPath: String?

    /// - Parameter environment: the process's environment, where `NOTIFY_SOCKET` is looked up.
    public init(environment: [String: String]) {
        let path = environment["NOTIFY_SOCKET"] ?? ""
        socketPath = path.isEmpty ? nil : path
    }

    /// Whether a service manager asked to be told (`NOTIFY_SOCKET` is set).
    public var isAsked: Bool { socketPath != nil }

    /// Sends `state` (`READY=1`, `STOPPING=1`, `STATUS=…`, lines joined by newlines); whether it was sent.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        // A path; or, starting with "@", a name in the abstract namespace (its first byte NUL).
        var bytes = Array(socketPath.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in bytes.enumerated() { path[index] = byte }
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                message.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, length) }
            }
        }
        return sent == message.count
    }
}
