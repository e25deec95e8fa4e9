import Foundation

/// How one carrier's tracking site is asked: how many numbers a request carries, the requests for a batch
/// (with any form state the site needs, fetched, reused and renewed when refused) and the parser of its
/// answers. The ``UpstreamScheduler`` of that carrier calls ``lookup(_:through:now:)`` once per batch, within
/// its own budget, breaker and retries; a site does nothing but I/O through the exchange it is given.
public protocol CarrierSite: Sendable {
    var carrier: Carrier { get }
    /// The most numbers one lookup carries.
    var batchSize: Int { get }
    /// Looks the numbers up (at most ``batchSize``) and returns one shipment per number, in order.
    /// - Throws: ``TransportError``, `CancellationError`, or an upstream failure (a refused page, an HTTP
    ///   status) that the scheduler turns into the waiters' ``TrackingError``.
    func lookup(_ numbers: [TrackingNumber], through exchange: UpstreamExchange, now: Date) async throws -> [Shipment]
}

/// What a site sends its requests through: the carrier's transport, bounded by the attempt's timeout.
public struct UpstreamExchange: Sendable {
    public let userAgent: String
    public let timeout: Duration
    let send: @Sendable (UpstreamRequest) async throws -> UpstreamResponse

    /// A GET (or POST with a form body) expecting a 2xx answer.
    /// - Throws: the transport's error, or an HTTP status failure naming the URL.
    func fetch(_ url: URL, form: [(String, String)]? = nil) async throws -> UpstreamResponse {
        var headers = ["User-Agent": userAgent, "Accept": "text/html"]
        var body = Data()
        if let form {
            headers["Content-Type"] = TrackingForm.contentType
            body = Data(FormEncoding.encode(form).utf8)
        }
        let response = try await send(
            UpstreamRequest(url: url, method: form == nil ? "GET" : "POST", headers: headers, body: body, timeout: timeout))
        guard (200...299).contains(response.status) else {
            throw UpstreamAttemptFailure.httpStatus(response.status, endpoint: url)
        }
        return response
    }
}

/// `application/x-www-form-urlencoded` and query strings.
enum FormEncoding {
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}

extension CarrierSite {
    /// A URL under the site's origin.
    static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw TransportError(.other, "\(text) is not a URL") }
        return url
    }

    /// Parses with `parse`, a refused page becoming the failure the scheduler knows.
    func read(
        _ response: UpstreamResponse, from url: URL,
        _ parse: (Data, String?) throws(TrackingPageError) -> [Shipment]
    ) throws -> [Shipment] {
        do {
            return try parse(response.body, response.declaredCharset)
        } catch {
            throw UpstreamAttemptFailure.page(
                RefusedPage(
                    carrier: carrier, error: error, endpoint: url, body: response.body,
                    declaredCharset: response.declaredCharset))
        }
    }
}

/// The site of each carrier, at its real address or under another origin (a simulator, a fake).
public enum CarrierSites {
    /// Yamato's form (the full URL, as `--endpoint URL` has always meant); for the others the origin the
    /// site's real paths go under.
    public static func defaultEndpoint(for carrier: Carrier) -> URL {
        switch carrier {
        case .yamato: TrackingClient.Configuration.yamatoEndpoint
        case .sagawa: URL(string: "https://k2k.sagawa-exp.co.jp")!
        case .japanPost: URL(string: "https://trackings.post.japanpost.jp")!
        }
    }

    public static func site(for carrier: Carrier, endpoint: URL) -> any CarrierSite {
        switch carrier {
        case .yamato: YamatoSite(endpoint: endpoint)
        case .sagawa: SagawaSite(origin: endpoint)
        case .japanPost: JapanPostSite(origin: endpoint.absoluteString.trimmingTrailingSlashes)
        }
    }
}

/// Yamato: one POST of up to ten numbers to the form, answered with every parcel's whole page.
struct YamatoSite: CarrierSite {
    let endpoint: URL
    var carrier: Carrier { .yamato }
    var batchSize: Int { BatchPlan.maximumBatchSize }
    private let parser = TrackingPageParser()

    func lookup(_ numbers: [TrackingNumber], through exchange: UpstreamExchange, now: Date) async throws -> [Shipment] {
        let request = UpstreamRequest(
            url: endpoint, method: "POST",
            headers: ["Content-Type": TrackingForm.contentType, "User-Agent": exchange.userAgent, "Accept": "text/html"],
            body: TrackingForm.body(for: numbers), timeout: exchange.timeout)
        let response = try await exchange.send(request)
        guard (200...299).contains(response.status) else {
            throw UpstreamAttemptFailure.httpStatus(response.status, endpoint: endpoint)
        }
        return try read(response, from: endpoint) { body, charset throws(TrackingPageError) in
            try parser.parse(body, charset: charset, expecting: numbers, now: now)
        }
    }
}

/// Japan Post: one GET of the `direct` page per number, which alone carries the whole history (the list
/// page of ten numbers shows only each one's latest row).
struct JapanPostSite: CarrierSite {
    let origin: String
    var carrier: Carrier { .japanPost }
    var batchSize: Int { 1 }
    private let parser = JapanPostPageParser()

    func lookup(_ numbers: [TrackingNumber], through exchange: UpstreamExchange, now: Date) async throws -> [Shipment] {
        var shipments: [Shipment] = []
        for number in numbers {
            let query = FormEncoding.encode([("reqCodeNo1", number.digits), ("searchKind", "S002"), ("locale", "ja")])
            let url = try Self.url(origin + "/services/srv/search/direct?" + query)
            let response = try await exchange.fetch(url)
            shipments += try read(response, from: url) { body, charset throws(TrackingPageError) in
                try parser.parse(body, charset: charset, expecting: [number], now: now)
            }
        }
        return shipments
    }
}

extension String {
    var trimmingTrailingSlashes: String {
        var text = self
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
