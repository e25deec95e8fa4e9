import Foundation
import Kuroneko
import Synchronization

/// How one delivery attempt ended.
public struct DeliveryOutcome: Sendable, Equatable {
    /// The receiver's HTTP status, when it answered.
    public let status: Int?
    /// Why there was no 2xx answer, in one line.
    public let error: String?
    /// The answer's `Retry-After`, in seconds, when it gave one (a 429 or 503).
    public var retryAfter: TimeInterval?
    /// The answer's header fields (names in lower case) and body (at most 64 KiB), for a kind that reads them.
    public var headers: [String: String]
    public var body: Data

    public var delivered: Bool { status.map { (200..<300).contains($0) } ?? false }

    public init(
        status: Int?, error: String?, retryAfter: TimeInterval? = nil, headers: [String: String] = [:],
        body: Data = Data()
    ) {
        self.status = status
        self.error = error
        self.retryAfter = retryAfter
        self.headers = headers
        self.body = body
    }
}

/// Sends one signed webhook body. A protocol, so the outbox can be tested without sockets.
public protocol WebhookSender: Sendable {
    func send(_ body: Data, signature: String, to url: String) async -> DeliveryOutcome
}

/// The real sender of webhooks and channel requests: the one outbound client (``CurlTransport``), with the
/// address guard on the address actually connected to (unless private addresses are allowed), one deadline
/// for the whole attempt from name resolution to the last byte (10 s), no redirects, an answer of at most
/// 64 KiB, the CA file setting, and the proxy variables.
public struct CurlDeliverySender: WebhookSender {
    public let allowPrivate: Bool
    public let timeout: TimeInterval
    /// A PEM file of the certificate authorities to trust instead of the system's (`--ca-file`).
    public let caFile: String?
    private let transport: CurlTransport
    /// For a service the operator configured (LINE's origin), which the guard does not apply to.
    private let unguarded: CurlTransport
    /// The most of an answer read: receivers answer a status and a few words.
    public static let maximumAnswerBytes = 65_536

    public init(
        allowPrivate: Bool, timeout: TimeInterval = 10, caFile: String? = nil, proxy: ProxySettings = .from()
    ) {
        self.allowPrivate = allowPrivate
        self.timeout = timeout
        self.caFile = caFile
        transport = CurlTransport(
            maximumBodyBytes: Self.maximumAnswerBytes, caFile: caFile, proxy: proxy,
            addressGuard: allowPrivate ? nil : AddressGuard { WebhookAddress.refusal(of: $0) },
            answerKind: "a receiver's answer")
        unguarded = CurlTransport(
            maximumBodyBytes: Self.maximumAnswerBytes, caFile: caFile, proxy: proxy, answerKind: "a receiver's answer")
    }

    public func send(_ body: Data, signature: String, to url: String) async -> DeliveryOutcome {
        await exchange(
            "POST", body, headers: ["Content-Type": "application/json", WebhookPayload.signatureHeader: signature],
            to: url)
    }

    /// One request of `method` with `headers` (names and values without line breaks) and `body`.
    func exchange(
        _ method: String, _ body: Data, headers: [String: String], to url: String, guarded: Bool = true
    ) async -> DeliveryOutcome {
        let address: WebhookAddress
        do {
            address = try WebhookAddress(url)
        } catch {
            return DeliveryOutcome(status: nil, error: error.description)
        }
        guard let target = URL(string: address.url) else {
            return DeliveryOutcome(status: nil, error: "\(url.prefix(80)) is not a usable URL")
        }
        var fields = headers.mapValues { $0.filter { $0 != "\r" && $0 != "\n" } }
        fields["User-Agent"] = "Kuroneko-Webhook/\(KuronekoVersion.version)"
        let seconds = max(0.001, timeout)
        let request = UpstreamRequest(
            url: target, method: method, headers: fields, body: body, timeout: .milliseconds(Int64(seconds * 1000)))
        let response: UpstreamResponse
        do {
            response = try await (guarded ? transport : unguarded).send(request)
        } catch let error as TransportError {
            switch error.kind {
            case .timeout:
                return DeliveryOutcome(
                    status: nil,
                    error:
                        "\(address.host) did not take the delivery and answer within \(Self.seconds(seconds)) s (the whole attempt's limit)"
                )
            case .refused:
                return DeliveryOutcome(
                    status: nil,
                    error: "\(error.message) (private addresses are allowed by KURONEKO_ALLOW_PRIVATE_WEBHOOKS=1)")
            default:
                return DeliveryOutcome(status: nil, error: error.message)
            }
        } catch {
            return DeliveryOutcome(status: nil, error: "the delivery to \(address.host) was cancelled")
        }
        let status = response.status
        guard (200..<300).contains(status) else {
            let reason = (300..<400).contains(status) ? "a redirect, which is not followed" : "not a 2xx status"
            // Retry-After in seconds (an HTTP date is read as no advice), at most a day.
            let retryAfter = response.headers["retry-after"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                .flatMap { (0...86_400).contains($0) ? TimeInterval($0) : nil }
            return DeliveryOutcome(
                status: status, error: "\(address.host) answered HTTP \(status), \(reason)", retryAfter: retryAfter,
                headers: response.headers, body: response.body)
        }
        return DeliveryOutcome(status: status, error: nil, headers: response.headers, body: response.body)
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}

/// Sends one channel request (its method, headers and body) through the same guarded client as webhooks.
public protocol ChannelSender: Sendable {
    func send(_ request: ChannelRequest) async -> DeliveryOutcome
}

extension CurlDeliverySender: ChannelSender {
    public func send(_ request: ChannelRequest) async -> DeliveryOutcome {
        await exchange(
            request.method, request.body, headers: request.headers, to: request.url.absoluteString,
            guarded: request.guarded)
    }
}
