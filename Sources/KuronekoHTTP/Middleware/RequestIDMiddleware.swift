import Foundation
import Synchronization

/// Gives every request an id, `X-Request-ID`: the client's own when it sent a sane one (1 to 64 visible
/// ASCII characters), else a new one; echoed on the response and written in the access log.
public struct RequestIDMiddleware: HTTPMiddleware {
    private static let prefix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    private static let counter = Atomic<UInt64>(0)

    public init() {}

    public func intercept(_ request: inout HTTPRequest) -> HTTPResponse? {
        if let given = request.headers["x-request-id"], Self.isSane(given) {
            request.id = given
            return nil
        }
        let next = Self.counter.wrappingAdd(1, ordering: .relaxed).newValue
        request.id = Self.prefix + "-" + String(next, radix: 16)
        return nil
    }

    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        if let id = request.id { response.headers.append(("X-Request-ID", id)) }
    }

    static func isSane(_ id: String) -> Bool {
        let bytes = id.utf8
        return !bytes.isEmpty && bytes.count <= 64 && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
