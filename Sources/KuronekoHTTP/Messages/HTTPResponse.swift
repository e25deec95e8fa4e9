import Foundation
import Synchronization

/// An HTTP response as the application builds it.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header fields in order.
    public var headers: [(name: String, value: String)]
    public var body: Data
    /// A body sent from a file instead of ``body`` (a large export written out a page at a time): the server
    /// sends it with `sendfile` and closes it, so it never sits in memory whole.
    public var file: ResponseFile?
    /// The route pattern that answered (`/v1/shipments/{number}`), `nil` when none did: for metrics and the
    /// access log, never sent.
    public var route: String?

    public init(
        status: Int, headers: [(name: String, value: String)] = [], body: Data = Data(), route: String? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.route = route
    }

    /// Sets a header, replacing any fields of that name.
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { Self.sameName($0.name, name) }
        headers.append((name, value))
    }

    /// The first value of a header, compared without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { Self.sameName($0.name, name) }?.value
    }

    /// ASCII case-insensitive equality of two header names, without allocating (this runs several times
    /// per request on the cache-hit path).
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        // Names are usually spelled alike (the same literal): that compares as two words.
        if lhs == rhs { return true }
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?) where a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A: continue
            case (let a?, let b?) where a == b: continue
            default: return false
            }
        }
    }

    /// A body of the given type.
    public static func content(_ body: Data, type: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", type)], body: body)
    }

    /// A JSON body, encoded with sorted keys and unescaped slashes.
    public static func json(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return content(try encoder.encode(value), type: "application/json", status: status)
        } catch {
            return problem(status: 500, title: "Internal Server Error", detail: "the response could not be encoded")
        }
    }

    /// An RFC 9457 problem document: what went wrong, in terms the client can act on.
    /// - Parameter reason: a stable code for what happened (an extension member), e.g.
    ///   `upstream_body_too_large`; left out when `nil`.
    public static func problem(
        status: Int, title: String, detail: String, type: String = "about:blank", reason: String? = nil
    ) -> HTTPResponse {
        let document = ProblemDetails(type: type, title: title, status: status, detail: detail, reason: reason)
        var response = json(document, status: status)
        response.headers = [("Content-Type", "application/problem+json")]
        return response
    }
}

/// An open, unlinked file that is a response's body, owned by the response until the server takes it.
public final class ResponseFile: Sendable {
    /// `-1` once the server has taken it.
    private let descriptor: Mutex<Int32>
    public let size: UInt64

    /// Takes ownership of `descriptor`, a file of `size` bytes read from its start.
    public init(descriptor: Int32, size: UInt64) {
        self.descriptor = Mutex(descriptor)
        self.size = size
    }

    /// The whole file, read without moving its offset (tests that answer in-process read bodies so).
    public func contents() -> Data {
        let descriptor = descriptor.withLock { $0 }
        guard descriptor >= 0 else { return Data() }
        var data = Data(count: Int(size))
        var offset = 0
        data.withUnsafeMutableBytes { buffer in
            while offset < buffer.count {
                let read = pread(descriptor, buffer.baseAddress! + offset, buffer.count - offset, off_t(offset))
                guard read > 0 else { break }
                offset += read
            }
        }
        return data.prefix(offset)
    }

    /// The descriptor, once: whoever takes it closes it.
    func take() -> Int32 {
        descriptor.withLock { descriptor in
            defer { descriptor = -1 }
            return descriptor
        }
    }

    deinit {
        let left = descriptor.withLock { $0 }
        if left >= 0 { close(left) }
    }
}

/// The body of an `application/problem+json` response (RFC 9457).
public struct ProblemDetails: Codable, Sendable, Hashable {
    public var type: String
    public var title: String
    public var status: Int
    public var detail: String
    /// A stable code for what happened, where the server has one (`upstream_body_too_large`, `timeout`, …).
    public var reason: String?
}
