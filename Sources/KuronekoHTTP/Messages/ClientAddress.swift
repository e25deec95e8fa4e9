import Foundation

/// The number the adapter names a client's address by (``HTTPRequest/client``), made from an address's text: an
/// IPv4 address is 1 + its 32 bits as they lie in memory, an IPv6 one its two halves folded with the top bit set
/// (an IPv4-mapped IPv6 address is its IPv4 address), as the adapter makes it from the socket.
public enum ClientAddress {
    /// - Returns: `nil` when the text is not an IP address (a name is not resolved).
    public static func key(_ text: String) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var v4 = in_addr()
        if inet_pton(AF_INET, trimmed, &v4) == 1 { return 1 + UInt64(v4.s_addr) }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, trimmed, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            let mapped = bytes[12..<16].map(String.init).joined(separator: ".")
            return key(mapped)
        }
        let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return (high ^ low) | (1 << 63)
    }
}
