import Foundation
import Kuroneko

/// A webhook URL, checked: http or https, a host, no credentials, at most 2,048 characters; and the rule
/// about where it may lead: not to any block of ``AddressBlocks`` (loopback, private, link-local, multicast,
/// documentation, benchmarking and the other non-global blocks, unless
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
        // URLComponents reads any run of digits as the port: 70000 or -1 must be refused, never converted.
        // The port's own text decides (too long a run of digits reads as no port at all).
        let portText = components.rangeOfPort.map { String(text[$0]) }
        let defaultPort: UInt16 = secure ? 443 : 80
        let port = portText.map { $0.isEmpty ? defaultPort : UInt16($0) ?? 0 } ?? defaultPort
        guard port > 0 else {
            throw .port(portText ?? "")
        }
        self.port = port
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        target = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The host's addresses, each checked; the first refused one is an error unless `allowPrivate`.
    public func resolve(allowPrivate: Bool) throws(WebhookAddressError) -> [sockaddr_storage] {
        guard let addresses = AddressGuard.addresses(of: host, port: Int(port)) else { throw .unresolvable(host) }
        if !allowPrivate {
            for address in addresses {
                if let reason = Self.refusal(of: address) { throw .privateAddress(host: host, reason: reason) }
            }
        }
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

    static func refusal(ipv4 value: UInt32) -> String? { AddressBlocks.refusal(ipv4: value) }

    static func refusal(ipv6 bytes: [UInt8]) -> String? { AddressBlocks.refusal(ipv6: bytes) }
}

/// Why a webhook URL is refused: one line naming it.
public enum WebhookAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooLong(Int)
    case malformed(String)
    case scheme(String)
    case credentials
    case port(String)
    case unresolvable(String)
    case privateAddress(host: String, reason: String)

    public var description: String { description(naming: "webhook_url") }

    /// The line with the field named as the request names it (`url` for a channel).
    public func description(naming field: String) -> String {
        switch self {
        case .tooLong(let count):
            "\(field) is \(count) characters long; at most \(WebhookAddress.maximumLength) are allowed"
        case .malformed(let reason): "\(field) is not a usable URL: \(reason)"
        case .scheme(let scheme): "\(field) uses \(scheme)://; only http:// and https:// are allowed"
        case .credentials: "\(field) carries a user name or password; put credentials in the path or a token"
        case .port(let port): "\(field)'s port \(port.prefix(20)) is not a port number from 1 to 65535"
        case .unresolvable(let host): "\(field)'s host \(host) does not resolve"
        case .privateAddress(let host, let reason):
            "\(field)'s host \(host) leads to \(reason); webhooks go to public addresses only "
                + "(KURONEKO_ALLOW_PRIVATE_WEBHOOKS=1 in /etc/default/kuroneko, or serve --allow-private-webhooks, "
                + "lifts this)"
        }
    }
}
