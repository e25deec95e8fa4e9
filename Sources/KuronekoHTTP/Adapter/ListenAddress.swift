import Foundation

/// Where the server listens: an IPv4 or IPv6 address, or a host name resolved once at start.
///
/// `127.0.0.1`, `0.0.0.0`, `::1`, `[::1]`, `::` (every address, IPv6 and IPv4 alike) and names such as
/// `localhost`. A name listens on the first address it resolves to, IPv4 first: `localhost` is 127.0.0.1.
enum ListenAddress: Equatable {
    case ipv4(in_addr)
    case ipv6(in6_addr)

    static func == (left: ListenAddress, right: ListenAddress) -> Bool {
        switch (left, right) {
        case (.ipv4(var a), .ipv4(var b)): memcmp(&a, &b, MemoryLayout<in_addr>.size) == 0
        case (.ipv6(var a), .ipv6(var b)): memcmp(&a, &b, MemoryLayout<in6_addr>.size) == 0
        default: false
        }
    }

    /// The address of `host`.
    /// - Throws: ``ServerStartError`` naming the host when it is neither an address nor a name that resolves.
    static func resolve(_ host: String) throws(ServerStartError) -> ListenAddress {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 { return .ipv4(v4) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 { return .ipv6(v6) }
        guard Self.isHostName(bare) else {
            throw ServerStartError(message: Self.refusal(host, "is not an address or a host name"))
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(bare, nil, &hints, &found)
        guard status == 0, let first = found else {
            throw ServerStartError(
                message: Self.refusal(host, "does not resolve (\(String(cString: gai_strerror(status))))"))
        }
        defer { freeaddrinfo(first) }
        var ipv6: ListenAddress?
        for entry in sequence(first: first, next: { $0.pointee.ai_next }) {
            guard let address = entry.pointee.ai_addr else { continue }
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { .ipv4($0.pointee.sin_addr) }
            case AF_INET6 where ipv6 == nil:
                ipv6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { .ipv6($0.pointee.sin6_addr) }
            default:
                continue
            }
        }
        guard let ipv6 else { throw ServerStartError(message: Self.refusal(host, "has no IPv4 or IPv6 address")) }
        return ipv6
    }

    /// Letters, digits, hyphens and dots, at most 253 characters: what a resolver is asked about.
    private static func isHostName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 253
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D
                    || byte == 0x2E
            }
    }

    private static func refusal(_ host: String, _ problem: String) -> String {
        let shown = host.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "?" }
            .joined()
        return "--host \"\(shown)\" \(problem); expected an address such as 127.0.0.1, 0.0.0.0, ::1 or ::, "
            + "or a name such as localhost"
    }

    /// Whether this is `::`, every IPv6 address: the server then takes IPv4 connections as well.
    var isIPv6Any: Bool {
        guard case .ipv6(var address) = self else { return false }
        var any = in6addr_any
        return memcmp(&address, &any, MemoryLayout<in6_addr>.size) == 0
    }

    var isIPv6: Bool {
        if case .ipv6 = self { return true }
        return false
    }

    /// How the address is written in a URL: `127.0.0.1`, `[::1]`.
    var urlHost: String {
        switch self {
        case .ipv4(var address):
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
            return Self.string(text)
        case .ipv6(var address):
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
            return "[\(Self.string(text))]"
        }
    }

    /// The text before the first NUL.
    private static func string(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Calls `body` with the socket address for `port`.
    func withSocketAddress<T>(port: UInt16, _ body: (UnsafePointer<sockaddr>) -> T) -> T {
        switch self {
        case .ipv4(let address):
            var socket = sockaddr_in()
            socket.sin_family = sa_family_t(AF_INET)
            socket.sin_port = port.bigEndian
            socket.sin_addr = address
            return withUnsafePointer(to: &socket) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        case .ipv6(let address):
            var socket = sockaddr_in6()
            socket.sin6_family = sa_family_t(AF_INET6)
            socket.sin6_port = port.bigEndian
            socket.sin6_addr = address
            return withUnsafePointer(to: &socket) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
    }
}
