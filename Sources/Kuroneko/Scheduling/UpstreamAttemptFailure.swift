import Foundation

/// Why one POST failed, and whether trying again could help.
enum UpstreamAttemptFailure: Error, Sendable {
    case transport(TransportError)
    case httpStatus(Int, endpoint: URL)
    case page(RefusedPage)

    /// Timeouts, broken connections and server errors may pass; a 4xx or a refused page would come back the same.
    var mayPass: Bool {
        switch self {
        case .page: false
        case .transport(let error): error.kind == .timeout || error.kind == .connection
        case .httpStatus(let status, _): (500...599).contains(status)
        }
    }

    /// A whole page the carrier answered whose layout the parser does not know: the carrier is up.
    var isAnswerNotUnderstood: Bool {
        if case .page(let refused) = self { return refused.meansPageChanged }
        return false
    }

    /// The error the waiters get once no more attempts will be made.
    func error(attempts: Int) -> TrackingError {
        let tries = attempts == 1 ? "" : " (after \(attempts) attempts)"
        switch self {
        case .transport(let error):
            let code: TrackingError.Code =
                switch error.kind {
                case .timeout: .timeout
                case .connection: .connection
                case .bodyTooLarge: .upstreamBodyTooLarge
                case .other, .refused: .transport
                }
            return TrackingError(code, error.message + tries)
        case .httpStatus(let status, let endpoint):
            let redirect = (300..<400).contains(status) ? ", a redirect, which is not followed" : ""
            return TrackingError(
                .httpStatus, "\(endpoint) answered HTTP \(status)\(redirect)\(tries)", httpStatus: status)
        case .page(let refused):
            guard refused.meansPageChanged else {
                return TrackingError(
                    .page, "\(refused.endpoint) answered a page that cannot be read: \(refused.error.message)",
                    pageError: refused.error, carrier: refused.carrier)
            }
            return TrackingError(
                .pageNotUnderstood,
                "\(refused.carrier.englishName)'s page could not be read (its layout may have changed): "
                    + refused.error.message,
                pageError: refused.error, carrier: refused.carrier)
        }
    }
}
