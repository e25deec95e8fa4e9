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
    func read<Answer>(
        _ response: UpstreamResponse, from url: URL,
        _ parse: (Data, String?) throws(TrackingPageError) -> Answer
    ) throws -> Answer {
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

extension String {
    var trimmingTrailingSlashes: String {
        var text = self
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
