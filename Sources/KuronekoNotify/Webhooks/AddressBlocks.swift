/// Every block of addresses a webhook may not be sent to, in one table: the IANA IPv4 and IPv6
/// special-purpose registries' blocks that are not globally reachable, plus multicast. IPv6 forms that
/// carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64's well-known prefix, 6to4, Teredo) are
/// judged by the IPv4 address they carry.
public enum AddressBlocks {
    /// A block of IPv4 addresses and why it is refused.
    public struct IPv4Block: Sendable {
        public let network: UInt32
        public let prefixLength: Int
        public let reason: String

        func contains(_ address: UInt32) -> Bool {
            let mask: UInt32 = prefixLength == 0 ? 0 : ~UInt32(0) << UInt32(32 - prefixLength)
            return address & mask == network & mask
        }
    }

    /// How an IPv6 block is judged: refused outright, or by the IPv4 address it embeds.
    public enum IPv6Rule: Sendable {
        case refused(String)
        /// The IPv4 address in bytes 12..<16 (mapped, compatible, NAT64).
        case embeddedLast32
        /// The IPv4 address in bytes 2..<6 (6to4, RFC 3056).
        case embedded6to4
        /// Teredo (RFC 4380): the server's IPv4 address in bytes 4..<8, the client's in bytes 12..<16 inverted.
        case teredo
    }

    public struct IPv6Block: Sendable {
        public let prefix: [UInt8]
        public let prefixLength: Int
        public let rule: IPv6Rule

        func contains(_ bytes: [UInt8]) -> Bool {
            var remaining = prefixLength
            var index = 0
            while remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if bytes[index] & mask != prefix[index] & mask { return false }
                remaining -= bits
                index += 1
            }
            return true
        }
    }

    private static func v4(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ length: Int, _ reason: String)
        -> IPv4Block
    {
        IPv4Block(network: a << 24 | b << 16 | c << 8 | d, prefixLength: length, reason: reason)
    }

    /// Refused IPv4 blocks (RFC 6890 and the IANA registry; multicast and the reserved 240/4 besides).
    public static let ipv4: [IPv4Block] = [
        v4(0, 0, 0, 0, 8, "an unspecified (\"this network\") address"),
        v4(10, 0, 0, 0, 8, "a private address"),
        v4(100, 64, 0, 0, 10, "a shared (carrier-grade NAT) address"),
        v4(127, 0, 0, 0, 8, "a loopback address"),
        v4(169, 254, 0, 0, 16, "a link-local address"),
        v4(172, 16, 0, 0, 12, "a private address"),
        v4(192, 0, 0, 0, 24, "an IETF protocol assignment address"),
        v4(192, 0, 2, 0, 24, "a documentation address"),
        v4(192, 88, 99, 0, 24, "a 6to4 relay anycast address"),
        v4(192, 168, 0, 0, 16, "a private address"),
        v4(198, 18, 0, 0, 15, "a benchmarking address"),
        v4(198, 51, 100, 0, 24, "a documentation address"),
        v4(203, 0, 113, 0, 24, "a documentation address"),
        v4(224, 0, 0, 0, 4, "a multicast address"),
        v4(240, 0, 0, 0, 4, "a reserved or broadcast address"),
    ]

    private static func v6(_ groups: [UInt16], _ length: Int, _ rule: IPv6Rule) -> IPv6Block {
        var bytes = [UInt8](repeating: 0, count: 16)
        for (index, group) in groups.enumerated() {
            bytes[index * 2] = UInt8(group >> 8)
            bytes[index * 2 + 1] = UInt8(group & 0xFF)
        }
        return IPv6Block(prefix: bytes, prefixLength: length, rule: rule)
    }

    /// IPv6 blocks, most specific first: the first block that contains an address decides.
    public static let ipv6: [IPv6Block] = [
        v6([0, 0, 0, 0, 0, 0, 0, 0], 128, .refused("an unspecified address")),
        v6([0, 0, 0, 0, 0, 0, 0, 1], 128, .refused("a loopback address")),
        v6([0, 0, 0, 0, 0, 0xFFFF], 96, .embeddedLast32),
        v6([0, 0, 0, 0, 0, 0], 96, .embeddedLast32),
        v6([0, 0, 0, 0, 0xFFFF, 0], 96, .refused("an IPv4-translated address")),
        v6([0x64, 0xFF9B, 0, 0, 0, 0], 96, .embeddedLast32),
        v6([0x64, 0xFF9B, 1], 48, .refused("a local-use NAT64 address")),
        v6([0x100, 0, 0, 0], 64, .refused("a discard-only address")),
        v6([0x2001, 0], 32, .teredo),
        v6([0x2001, 0x2, 0], 48, .refused("a benchmarking address")),
        v6([0x2001, 0xDB8], 32, .refused("a documentation address")),
        v6([0x2001, 0x10], 28, .refused("an ORCHID address")),
        v6([0x2002], 16, .embedded6to4),
        v6([0x3FFF], 20, .refused("a documentation address")),
        v6([0x5F00], 16, .refused("a segment-routing address")),
        v6([0xFC00], 7, .refused("a private (unique local) address")),
        v6([0xFE80], 10, .refused("a link-local address")),
        v6([0xFEC0], 10, .refused("a site-local address")),
        v6([0xFF00], 8, .refused("a multicast address")),
    ]

    /// Why an IPv4 address is refused, or `nil` when webhooks may go there.
    public static func refusal(ipv4 address: UInt32) -> String? {
        ipv4.first { $0.contains(address) }?.reason
    }

    /// Why an IPv6 address (16 bytes) is refused, or `nil` when webhooks may go there.
    public static func refusal(ipv6 bytes: [UInt8]) -> String? {
        guard bytes.count == 16 else { return "not an IPv6 address" }
        guard let block = ipv6.first(where: { $0.contains(bytes) }) else { return nil }
        func ipv4(at offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        func embedding(_ reason: String?) -> String? {
            reason.map { "an IPv6 address embedding \($0)" }
        }
        switch block.rule {
        case .refused(let reason): return reason
        case .embeddedLast32: return embedding(refusal(ipv4: ipv4(at: 12)))
        case .embedded6to4: return embedding(refusal(ipv4: ipv4(at: 2)))
        case .teredo: return embedding(refusal(ipv4: ipv4(at: 4)) ?? refusal(ipv4: ~ipv4(at: 12)))
        }
    }
}
