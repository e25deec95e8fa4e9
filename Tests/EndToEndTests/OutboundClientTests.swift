import Foundation
import Kuroneko
import KuronekoNotify
import Testing

/// The one outbound client: the proxy variables are honoured for channels and carrier pages alike, and the
/// address guard holds on the address actually connected to.
@Suite("the outbound client: proxies and the address guard", .timeLimit(.minutes(10)))
struct OutboundClientTests {
    private static func receiver() throws -> FakeUpstream {
        try FakeUpstream { _ in .init(status: 204, contentType: "text/plain", body: Data()) }
    }

    @Test("HTTP_PROXY: a channel request goes to the proxy in absolute form, for a host only the proxy knows")
    func httpProxy() async throws {
        let proxy = try Self.receiver()
        defer { proxy.stop() }
        let settings = ProxySettings.from(environment: ["HTTP_PROXY": "http://127.0.0.1:\(proxy.port)"])
        let sender = CurlDeliverySender(allowPrivate: true, timeout: 5, proxy: settings)
        let outcome = await sender.send(
            ChannelRequest(url: URL(string: "http://ntfy.invalid/parcels")!, headers: [:], body: Data("hi".utf8)))
        #expect(outcome.delivered, "\(String(describing: outcome.error))")
        #expect(proxy.requests.map(\.path) == ["http://ntfy.invalid/parcels"])
        #expect(proxy.requests.first?.body == Data("hi".utf8))
    }

    @Test("HTTPS_PROXY: an https request opens a tunnel through the proxy (CONNECT host:443)")
    func httpsProxy() async throws {
        let proxy = try FakeUpstream { _ in .init(status: 403, contentType: "text/plain", body: Data()) }
        defer { proxy.stop() }
        let settings = ProxySettings.from(environment: ["HTTPS_PROXY": "http://127.0.0.1:\(proxy.port)"])
        let sender = CurlDeliverySender(allowPrivate: true, timeout: 5, proxy: settings)
        let outcome = await sender.send(Data("{}".utf8), signature: "t=1,v1=x", to: "https://hooks.invalid/in")
        #expect(!outcome.delivered)
        #expect(proxy.requests.map(\.method) == ["CONNECT"])
        #expect(proxy.requests.map(\.path) == ["hooks.invalid:443"])
        // Carrier pages go through the same client and the same settings.
        let page = UpstreamRequest(
            url: URL(string: "https://toi.invalid/cgi-bin/tneko")!, method: "POST", headers: [:], body: Data(),
            timeout: .seconds(5))
        await #expect(throws: TransportError.self) { try await CurlTransport(proxy: settings).send(page) }
        #expect(proxy.requests.map(\.path) == ["hooks.invalid:443", "toi.invalid:443"])
    }

    @Test("NO_PROXY: a listed host (and its subdomains) is reached directly")
    func noProxy() async throws {
        let receiver = try Self.receiver()
        defer { receiver.stop() }
        let settings = ProxySettings.from(environment: [
            "http_proxy": "http://127.0.0.1:9", "NO_PROXY": "example.jp, .127.0.0.1",
        ])
        #expect(settings.proxy(for: URL(string: "http://shop.example.jp/x")!) == nil)
        #expect(settings.proxy(for: URL(string: "http://example.com/x")!) == "http://127.0.0.1:9")
        #expect(settings.proxy(for: URL(string: "https://example.com/x")!) == nil, "no HTTPS_PROXY was given")
        let sender = CurlDeliverySender(allowPrivate: true, timeout: 5, proxy: settings)
        let outcome = await sender.send(
            ChannelRequest(url: URL(string: "http://127.0.0.1:\(receiver.port)/t")!, headers: [:], body: Data()))
        #expect(outcome.delivered, "\(String(describing: outcome.error))")
        #expect(receiver.requests.map(\.path) == ["/t"])
    }

    @Test("the address guard refuses a private address at connection time, directly or through a proxy")
    func guarded() async throws {
        let receiver = try Self.receiver()
        defer { receiver.stop() }
        let direct = CurlDeliverySender(allowPrivate: false, timeout: 5, proxy: .direct)
        let outcome = await direct.send(Data("{}".utf8), signature: "t=1,v1=x", to: "http://127.0.0.1:\(receiver.port)/h")
        #expect(!outcome.delivered)
        #expect(outcome.error?.contains("loopback") == true, "\(String(describing: outcome.error))")
        let proxied = CurlDeliverySender(
            allowPrivate: false, timeout: 5,
            proxy: ProxySettings(http: "http://127.0.0.1:\(receiver.port)"))
        let throughProxy = await proxied.send(
            ChannelRequest(url: URL(string: "http://localhost:8080/h")!, headers: [:], body: Data()))
        #expect(throughProxy.error?.contains("loopback") == true, "\(String(describing: throughProxy.error))")
        #expect(receiver.requests.isEmpty, "nothing reached the receiver or the proxy")
    }

    @Test("the command line reads HTTP_PROXY from its environment for carrier pages")
    func commandLineProxy() async throws {
        let proxy = try FakeUpstream { _ in .init(status: 503, contentType: "text/plain", body: Data()) }
        defer { proxy.stop() }
        let outcome = try await KuronekoBinary.runAside(
            ["track", "--endpoint", "http://toi.invalid/cgi-bin/tneko", "--timeout", "5", "327754459830"],
            environment: ["HTTP_PROXY": "http://127.0.0.1:\(proxy.port)", "NO_PROXY": ""])
        #expect(outcome.status != 0)
        #expect(proxy.requests.first?.path == "http://toi.invalid/cgi-bin/tneko", "\(outcome.standardError)")
    }
}
