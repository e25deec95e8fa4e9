import Foundation

/// A webhook URL, checked: http or https, a host, no credentials, at most 2,048 characters; and the rule
/// about where it may lead: not to loopback, private, link-local, multicast or unspecified addresses (unless
/// private webhooks are allowed), checked on every address the host resolves to when it is given, and
/// again on the address actually connected to when a delivery is made.
public struct WebhookAddress: Sendable, Hashable {
    public let url: String
    public let secure: Bool
    public let host: String
    public let port: UInt16
    /// Path and query, at least `/`.
    public let target: String

    public static let maximumLength = 2_048

    /// Parses and checks the form of a webhook URL.
    /// - Throws: ``WebhookAddressError`` naming what is wrong.
    public init(_ text: String) throws(WebhookAddressError) {
        guard text.count <= Self.maximumLength else { throw .tooLong(text.count) }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
            throw .malformed("it contains spaces or control characters")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw .malformed("it is not a URL")
        }
        guard scheme == "http" || scheme == "https" else { throw .scheme(scheme) }
        guard components.user == nil, components.password == nil else { throw .credentials }
        guard let host = components.host, !host.isEmpty else { throw .malformed("it has no host") }
        url = text
        secure = scheme == "https"
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = UInt16(components.port ?? (secure ? 443 : 80))
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        target = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The host's addresses, each checked; the first refused one is an error unless `allowPrivate`.
    public func resolve(allowPrivate: Bool) throws(WebhookAddressError) -> [sockaddr_storage] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(host, String(port), &hints, &list)
        guard result == 0, let list else { throw .unresolvable(host) }
        defer { freeaddrinfo(list) }
        var addresses: [sockaddr_storage] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(
                        from: UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen)))
                }
                if !allowPrivate, let reason = Self.refusal(of: storage) {
                    throw .privateAddress(host: host, reason: reason)
                }
                addresses.append(storage)
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw .unresolvable(host) }
        return addresses
    }

    /// Why an address may not receive webhooks, or `nil` when it may.
    public static func refusal(of address: sockaddr_storage) -> String? {
        var address = address
        switch Int32(address.ss_family) {
        case AF_INET:
            let value = withUnsafeBytes(of: &address) { raw in
                raw.load(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!, as: UInt32.self)
            }
            return refusal(ipv4: UInt32(bigEndian: value))
        case AF_INET6:
            let bytes = withUnsafeBytes(of: &address) { raw in
                Array(
                    raw[
                        MemoryLayout<sockaddr_in6>.offset(
                            of: \.sin6_addr)!..<(MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)! + 16)])
            }
            return refusal(ipv6: bytes)
        default:
            return "it is not an internet address"
        }
    }

    static func refusal(ipv4 value: UInt32) -> String? {
        func within(_ network: UInt32, _ bits: UInt32) -> Bool {
            let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
            return value & mask == network & mask
        }
        if within(0x7F00_0000, 8) { return "a loopback address" }
        if within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16) { return "a private address" }
        if within(0x6440_0000, 10) { return "a shared (carrier-grade NAT) address" }
        if within(0xA9FE_0000, 16) { return "a link-local address" }
        if within(0xE000_0000, 4) { return "a multicast address" }
        if within(0x0000_0000, 8) || within(0xF000_0000, 4) { return "an unspecified or reserved address" }
        return nil
    }

    static func refusal(ipv6 bytes: [UInt8]) -> String? {
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            let value = bytes[12..<16].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return refusal(ipv4: value)
        }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) {
            return bytes[15] == 1 ? "a loopback address" : "an unspecified address"
        }
        if bytes[0] & 0xFE == 0xFC { return "a private address" }
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return "a link-local address" }
        if bytes[0] == 0xFF { return "a multicast address" }
        return nil
    }
}

/// Why a webhook URL is refused: one line naming it.
public enum WebhookAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooLong(Int)
    case malformed(String)
    case scheme(String)
    case credentials
    case unresolvable(String)
    case privateAddress(host: String, reason: String)

    public var description: String {
        switch self {
        case .tooLong(let count):
            "webhook_url is \(count) characters long; at most \(WebhookAddress.maximumLength) are allowed"
        case .malformed(let reason): "webhook_url is not a usable URL: \(reason)"
        case .scheme(let scheme): "webhook_url uses \(scheme)://; only http:// and https:// are allowed"
        case .credentials: "webhook_url carries a user name or password; put credentials in the path or a token"
        case .unresolvable(let host): "webhook_url's host \(host) does not resolve"
        case .privateAddress(let host, let reason):
            "webhook_url's host \(host) leads to \(reason); webhooks go to public addresses only "
                + "(serve --allow-private-webhooks lifts this)"
        }
    }
}
