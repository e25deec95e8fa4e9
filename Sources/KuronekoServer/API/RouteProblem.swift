import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoStore

/// The one refusal every route throws or returns: its status, its stable `reason` (a ``ProblemReason``, or an
/// upstream failure's code such as `circuit_open`, which a client can show in its own words) and its detail,
/// in the shape of Hummingbird's `HTTPResponseError`. It becomes a response in one place (``response``), as an
/// RFC 9457 problem document; bulk results take the status and reason from it directly. Any other error a
/// route meets is turned into one with ``init(_:requestID:)``: a store failure is a 503, anything else a 500,
/// both naming the request's id, and the detail never carries a database's or a driver's words, nor a Swift
/// type's name.
struct RouteProblem: Error, Sendable {
    let status: Int
    let title: String
    /// The stable code; `nil` for none.
    let reason: String?
    let detail: String
    var type = "about:blank"
    /// Seconds a client should wait before trying again (503).
    var retryAfter: Int?

    init(
        status: Int, title: String, reason: ProblemReason?, detail: String, type: String = "about:blank",
        retryAfter: Int? = nil
    ) {
        self.init(status: status, title: title, code: reason?.rawValue, detail: detail, type: type, retryAfter: retryAfter)
    }

    init(
        status: Int, title: String, code: String?, detail: String, type: String = "about:blank", retryAfter: Int? = nil
    ) {
        self.status = status
        self.title = title
        self.reason = code
        self.detail = detail
        self.type = type
        self.retryAfter = retryAfter
    }

    /// The problem document: the one place a refusal becomes a response.
    var response: HTTPResponse {
        var response = HTTPResponse.problem(status: status, title: title, detail: detail, type: type, reason: reason)
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

    /// 409: what the store refused (a limit, a race, a number followed at another carrier); 410 for a changes
    /// cursor that can no longer be followed.
    static func conflict(_ error: WatchStoreError) -> RouteProblem {
        switch error {
        case .changesForgotten, .changesAhead:
            RouteProblem(status: 410, title: "Gone", reason: ProblemReason(error), detail: error.description)
        default:
            RouteProblem(status: 409, title: "Conflict", reason: ProblemReason(error), detail: error.description)
        }
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

    /// 500: a failure nobody foresaw. The error goes to the log under the request's id, which the detail names.
    static func internalError(requestID: String?) -> RouteProblem {
        RouteProblem(
            status: 500, title: "Internal Server Error", reason: .internalError,
            detail: "the server failed to answer this request; its log has the cause"
                + (requestID.map { " under request \($0)" } ?? ""))
    }

    /// 503: the request was given up before it was done (the server is stopping, or the client left).
    static let cancelled = RouteProblem(
        status: 503, title: "Service Unavailable", reason: .busy,
        detail: "the request was given up before it was done (the server is stopping); try again", retryAfter: 1)

    /// Whether the error is a failure of the store (logged and counted as one).
    static func isStoreFailure(_ error: any Error) -> Bool {
        error is StoreError || error is NewerSchemaError
    }

    /// Whether the error is neither a refusal, nor the store's, nor a cancellation: logged as unexpected.
    static func isUnexpected(_ error: any Error) -> Bool {
        !(error is RouteProblem || error is WatchStoreError || error is ParcelRecordError || error is CancellationError
            || isStoreFailure(error))
    }
}

extension RouteProblem {
    /// What any error a route meets is answered with.
    init(_ error: any Error, requestID: String?) {
        switch error {
        case let problem as RouteProblem: self = problem
        case let refused as WatchStoreError: self = .conflict(refused)
        case let refused as ParcelRecordError: self = .bad(refused.description, reason: .invalidRecord)
        case is CancellationError: self = .cancelled
        case _ where Self.isStoreFailure(error): self = .storeUnavailable(requestID: requestID)
        default: self = .internalError(requestID: requestID)
        }
    }
}
