import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoStore

/// A refusal a route throws: its status, its stable `reason` (``ProblemReason``, which a client can show in its
/// own words) and its detail, in the shape of Hummingbird's `HTTPResponseError`. ``WatchRoutes`` renders it once,
/// as a problem document (``response``); bulk results take the status and reason from it directly. Any other
/// error a route meets is turned into one with ``init(_:requestID:)``: the detail never carries a database's
/// or a driver's words, nor a Swift type's name.
struct RouteProblem: Error, Sendable {
    let status: Int
    let title: String
    let reason: ProblemReason
    let detail: String
    var type = "about:blank"
    /// Seconds a client should wait before trying again (503).
    var retryAfter: Int?

    /// The problem document: the one place a refusal becomes a response.
    var response: HTTPResponse {
        var response = HTTPResponse.problem(
            status: status, title: title, detail: detail, type: type, reason: reason.rawValue)
        if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
        return response
    }

    static func bad(_ detail: String, reason: ProblemReason = .invalidRequest) -> RouteProblem {
        RouteProblem(status: 400, title: "Bad Request", reason: reason, detail: detail)
    }

    static func invalidNumber(_ error: TrackingNumberError) -> RouteProblem {
        RouteProblem(
            status: 400, title: "Invalid tracking number", reason: .invalidNumber, detail: error.description,
            type: "https://kuroneko.invalid/problems/invalid-number")
    }

    static func notFound(_ number: String) -> RouteProblem {
        RouteProblem(status: 404, title: "Not Found", reason: .notWatched, detail: "\(number) is not on this watch list")
    }

    /// 409: what the store refused (a limit, a race, a number followed at another carrier).
    static func conflict(_ error: WatchStoreError) -> RouteProblem {
        RouteProblem(status: 409, title: "Conflict", reason: ProblemReason(error), detail: error.description)
    }

    /// 503 with `Retry-After`: too much of one kind of work at once.
    static func busy(_ detail: String) -> RouteProblem {
        RouteProblem(status: 503, title: "Service Unavailable", reason: .busy, detail: detail, retryAfter: 1)
    }

    /// 503 with `Retry-After`: the watch list could not be read or written (a database out of reach). The
    /// error itself goes to the log under the request's id, which the detail names.
    static func storeUnavailable(requestID: String?) -> RouteProblem {
        RouteProblem(
            status: 503, title: "Service Unavailable", reason: .storeUnavailable,
            detail: "the watch list could not be read or written just now; try again in a moment"
                + (requestID.map { " (request \($0))" } ?? ""),
            retryAfter: 1)
    }

    /// 503: the request was given up before it was done (the server is stopping, or the client left).
    static let cancelled = RouteProblem(
        status: 503, title: "Service Unavailable", reason: .busy,
        detail: "the request was given up before it was done (the server is stopping); try again", retryAfter: 1)

    /// Whether the error is a failure of the store (logged and counted), not a refusal or a cancellation.
    static func isStoreFailure(_ error: any Error) -> Bool {
        !(error is RouteProblem || error is WatchStoreError || error is CancellationError)
    }
}

extension RouteProblem {
    /// What any error a route meets is answered with.
    init(_ error: any Error, requestID: String?) {
        switch error {
        case let problem as RouteProblem: self = problem
        case let refused as WatchStoreError: self = .conflict(refused)
        case is CancellationError: self = .cancelled
        default: self = .storeUnavailable(requestID: requestID)
        }
    }
}

/// The body of `POST /v1/watches`: `{"number": …, "carrier": …?, "label": …?, "webhook_url": …?}`, nothing
/// else.
struct AddWatchRequest: Decodable {
    let number: String
    let carrier: Carrier?
    let label: String?
    let webhookURL: String?

    static let fields = ["number", "carrier", "label", "webhook_url"]

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !Self.fields.contains($0) }) {
            throw RouteProblem.bad(
                "unknown field \"\(unknown.prefix(40))\"; the fields are number, carrier, label and webhook_url")
        }
        guard let number = try? container.decode(String.self, forKey: Key("number")) else {
            throw RouteProblem.bad("number is missing or not a string; expected \"XXXX-XXXX-XXXX\"")
        }
        self.number = number
        if let name = try Self.optionalText(container, "carrier") {
            do {
                carrier = try Carrier(named: name)
            } catch {
                throw RouteProblem.bad("carrier " + error.description)
            }
        } else {
            carrier = nil
        }
        label = try Self.optionalText(container, "label")
        webhookURL = try Self.optionalText(container, "webhook_url")
    }

    /// A string, or nothing for a missing key or `null`; anything else is refused by name.
    private static func optionalText(_ container: KeyedDecodingContainer<Key>, _ name: String) throws -> String? {
        let key = Key(name)
        guard container.contains(key), (try? container.decodeNil(forKey: key)) == false else { return nil }
        guard let text = try? container.decode(String.self, forKey: key) else {
            throw RouteProblem.bad("\(name) is not a string")
        }
        return text
    }

    /// The request in `body`, or the problem that says what is wrong with it.
    static func decode(_ body: Data) throws(RouteProblem) -> AddWatchRequest {
        do {
            return try JSONDecoder().decode(AddWatchRequest.self, from: body)
        } catch let problem as RouteProblem {
            throw problem
        } catch {
            throw .bad("the body is not a JSON object such as {\"number\": \"XXXX-XXXX-XXXX\", \"label\": \"shoes\"}")
        }
    }
}
