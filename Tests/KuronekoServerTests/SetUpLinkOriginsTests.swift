import Testing

@testable import KuronekoServer

/// The set-up link points where a phone can open it: never at 0.0.0.0 or ::.
@Suite("the set-up link's address")
struct SetUpLinkOriginsTests {
    @Test("the public URL; the address listened on; for every address, this machine's, a home network's first")
    func origins() {
        #expect(
            SetUpLinkOrigins.origins(
                publicOrigin: "https://home.example.jp", scheme: "http", host: "0.0.0.0", port: 8080, machine: ["192.168.1.10"])
                == ["https://home.example.jp"])
        #expect(
            SetUpLinkOrigins.origins(publicOrigin: nil, scheme: "http", host: "127.0.0.1", port: 8080, machine: [])
                == ["http://127.0.0.1:8080"])
        let machine = ["127.0.0.1", "::1", "fe80::1", "203.0.113.7", "192.168.1.10", "2001:db8::5", "10.0.0.2"]
        #expect(
            SetUpLinkOrigins.origins(publicOrigin: nil, scheme: "http", host: "0.0.0.0", port: 8080, machine: machine)
                == ["http://192.168.1.10:8080", "http://10.0.0.2:8080", "http://203.0.113.7:8080"])
        #expect(
            SetUpLinkOrigins.origins(publicOrigin: nil, scheme: "https", host: "[::]", port: 8443, machine: machine)
                == ["https://192.168.1.10:8443", "https://10.0.0.2:8443", "https://203.0.113.7:8443", "https://[2001:db8::5]:8443"])
        // A machine with nothing but loopback: that, rather than an address nobody opens.
        #expect(
            SetUpLinkOrigins.origins(publicOrigin: nil, scheme: "http", host: "0.0.0.0", port: 80, machine: ["127.0.0.1"])
                == ["http://127.0.0.1:80"])
    }

    @Test("this machine's addresses are read, none scoped")
    func machine() {
        let addresses = SetUpLinkOrigins.machineAddresses()
        #expect(addresses.contains("127.0.0.1"), "\(addresses)")
        #expect(!addresses.contains { $0.contains("%") })
    }
}
