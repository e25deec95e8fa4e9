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
        request.id = Self.id(Self.counter.wrappingAdd(1, ordering: .relaxed).newValue)
        return nil
    }

    /// `prefix-counter`, the counter in lower-case hexadecimal, written byte by byte (up to 16 million
    /// requests the id is a small string, which allocates nothing).
    static func id(_ counter: UInt64) -> String {
        var digits = 1
        var rest = counter >> 4
        while rest > 0 {
            digits += 1
            rest >>= 4
        }
        let prefix = Self.prefix.utf8
        return String(unsafeUninitializedCapacity: prefix.count + 1 + digits) { buffer in
            var position = 0
            for byte in prefix {
                buffer[position] = byte
                position += 1
            }
            buffer[position] = UInt8(ascii: "-")
            var value = counter
            for index in stride(from: position + digits, through: position + 1, by: -1) {
                let nibble = UInt8(value & 0xF)
                buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                value >>= 4
            }
            return position + 1 + digits
        }
    }

    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        if let id = request.id { response.headers.append(("X-Request-ID", id)) }
    }

    static func isSane(_ id: String) -> Bool {
        let bytes = id.utf8
        return !bytes.isEmpty && bytes.count <= 64 && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
