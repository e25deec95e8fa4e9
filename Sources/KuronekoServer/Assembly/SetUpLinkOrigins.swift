import Foundation

/// Where the set-up link points, so that a phone can open it: `--public-url`'s origin; else the address listened on,
/// unless that is every address (`0.0.0.0`, `::`), which no phone opens: then this machine's own addresses, those
/// another device can reach first (private IPv4, then other non-loopback ones), loopback only when there is nothing
/// else. Pure: the addresses are given.
enum SetUpLinkOrigins {
    /// At most this many links are printed.
    static let limit = 4

    /// - Parameters:
    ///   - scheme: `http` or `https`.
    ///   - host: the host listened on, as a URL writes it (`0.0.0.0`, `[::]`, `127.0.0.1`).
    ///   - machine: this machine's interface addresses (IPv4 dotted, IPv6 without brackets).
    static func origins(publicOrigin: String?, scheme: String, host: String, port: Int, machine: [String]) -> [String] {
        if let publicOrigin { return [publicOrigin] }
        guard ["0.0.0.0", "[::]", "::"].contains(host) else { return ["\(scheme)://\(host):\(port)"] }
        let ipv4Only = host == "0.0.0.0"
        let usable = machine.filter { !$0.hasPrefix("fe80") && (!ipv4Only || !$0.contains(":")) }
        let ranked = usable.sorted { rank($0) < rank($1) }
        let chosen = ranked.filter { rank($0) < 3 }
        let shown = (chosen.isEmpty ? ["127.0.0.1"] : chosen).prefix(limit)
        return shown.map { address in
            "\(scheme)://\(address.contains(":") ? "[\(address)]" : address):\(port)"
        }
    }

    /// 0 a private IPv4 (a home network's), 1 another IPv4, 2 an IPv6, 3 loopback.
    static func rank(_ address: String) -> Int {
        if address == "127.0.0.1" || address.hasPrefix("127.") || address == "::1" { return 3 }
        guard !address.contains(":") else { return 2 }
        let parts = address.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 4 else { return 1 }
        let isPrivate =
            parts[0] == 10 || (parts[0] == 172 && (16...31).contains(parts[1])) || (parts[0] == 192 && parts[1] == 168)
        return isPrivate ? 0 : 1
    }

    /// This machine's interface addresses, as `getifaddrs` lists them (up interfaces, IPv4 and IPv6).
    static func machineAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, (entry.pointee.ifa_flags & UInt32(IFF_UP)) != 0 else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            // A scoped IPv6 (fe80::1%eth0) is no use to another device.
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.contains("%"), !found.contains(text) { found.append(text) }
        }
        return found
    }
}
