import Foundation
import Testing

@testable import KuronekoStore
import KuronekoNotify

@Suite("The webhook address guard, block by block")
struct AddressBlocksTests {
    private static func ipv4(_ text: String) -> UInt32 {
        var address = in_addr()
        precondition(inet_pton(AF_INET, text, &address) == 1, "test address \(text)")
        return UInt32(bigEndian: address.s_addr)
    }

    private static func ipv6(_ text: String) -> [UInt8] {
        var address = in6_addr()
        precondition(inet_pton(AF_INET6, text, &address) == 1, "test address \(text)")
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    @Test("every IPv4 block refuses its first and last address")
    func everyIPv4Block() {
        for block in AddressBlocks.ipv4 {
            let size: UInt32 = block.prefixLength == 0 ? .max : (UInt32(1) << UInt32(32 - block.prefixLength)) - 1
            for address in [block.network, block.network | size] {
                #expect(AddressBlocks.refusal(ipv4: address) == block.reason, "\(String(address, radix: 16))")
            }
        }
    }

    @Test(
        "IPv4 addresses at the edges of refused blocks",
        arguments: [
            ("192.0.0.8", "IETF protocol"), ("198.18.0.1", "benchmarking"), ("198.19.255.255", "benchmarking"),
            ("192.0.2.10", "documentation"), ("0.1.2.3", "unspecified"), ("255.255.255.255", "broadcast"),
            ("100.127.255.255", "shared"), ("172.31.0.1", "private"), ("192.88.99.1", "6to4"),
        ])
    func refusedIPv4(text: String, reason: String) {
        let refusal = AddressBlocks.refusal(ipv4: Self.ipv4(text))
        #expect(refusal?.contains(reason) == true, "\(text): \(refusal ?? "accepted")")
    }

    @Test(
        "public IPv4 addresses just outside the blocks are accepted",
        arguments: [
            "93.184.215.14", "1.1.1.1", "198.17.255.255", "198.20.0.0", "100.128.0.0", "172.32.0.0",
            "192.0.1.1", "223.255.255.255", "11.0.0.0", "126.255.255.255",
        ])
    func publicIPv4(text: String) {
        #expect(AddressBlocks.refusal(ipv4: Self.ipv4(text)) == nil, "\(text)")
    }

    @Test("every IPv6 block refused outright refuses its first address")
    func everyIPv6Block() {
        for block in AddressBlocks.ipv6 {
            guard case .refused(let reason) = block.rule else { continue }
            #expect(AddressBlocks.refusal(ipv6: block.prefix) == reason, "\(block.prefix)")
        }
    }

    @Test(
        "IPv6 forms embedding a refused IPv4 address are refused",
        arguments: [
            ("::7f00:1", "loopback"),  // IPv4-compatible 127.0.0.1
            ("::ffff:10.0.0.1", "private"),  // IPv4-mapped
            ("64:ff9b::127.0.0.1", "loopback"),  // NAT64 well-known prefix
            ("64:ff9b::169.254.169.254", "link-local"),
            ("64:ff9b:1::8.8.8.8", "local-use NAT64"),
            ("2002:7f00:1::", "loopback"),  // 6to4 of 127.0.0.1
            ("2002:c0a8:101::1", "private"),  // 6to4 of 192.168.1.1
            ("2001:0:7f00:1::", "loopback"),  // Teredo, server 127.0.0.1
            ("2001:0:808:808::3f57:fefe", "private"),  // Teredo, client ~3f57:fefe = 192.168.1.1
            ("::ffff:0:a00:1", "IPv4-translated"), ("100::1", "discard"), ("2001:db8::1", "documentation"),
            ("3fff::1", "documentation"), ("fd12::1", "unique local"), ("fe80::1", "link-local"),
            ("fec0::1", "site-local"), ("ff02::1", "multicast"), ("2001:2::1", "benchmarking"), ("::", "unspecified"),
            ("::1", "loopback"),
        ])
    func refusedIPv6(text: String, reason: String) {
        let refusal = AddressBlocks.refusal(ipv6: Self.ipv6(text))
        #expect(refusal?.contains(reason) == true, "\(text): \(refusal ?? "accepted")")
    }

    @Test(
        "public IPv6 addresses, and embedding forms of public IPv4, are accepted",
        arguments: ["2606:4700::1111", "2400:cb00::1", "64:ff9b::8.8.8.8", "2002:808:808::1", "::ffff:93.184.215.14"])
    func publicIPv6(text: String) {
        #expect(AddressBlocks.refusal(ipv6: Self.ipv6(text)) == nil, "\(text)")
    }

    @Test(
        "ports outside 1...65535 are refused before any lookup, by number or host",
        arguments: [
            "http://93.184.215.14:70000/", "http://example.com:70000/", "https://example.com:0/",
            "http://example.com:65536/h", "http://example.com:99999999999999999999/",
        ])
    func ports(url: String) {
        #expect(throws: WebhookAddressError.self) { _ = try WebhookAddress(url) }
    }

    @Test("the last port is accepted")
    func lastPort() async throws {
        #expect(try WebhookAddress("http://93.184.215.14:65535/").port == 65535)
    }
}
