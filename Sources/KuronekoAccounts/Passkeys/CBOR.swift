import Foundation

/// The part of CBOR (RFC 8949) a passkey's attestation and public key are written in: unsigned and negative
/// integers, byte and text strings, arrays, maps, and the simple values; definite lengths only. Bounded: at most
/// `maximumDepth` levels, every length checked against the bytes left, so hostile input is refused, never trusted.
public indirect enum CBOR: Sendable, Hashable {
    case unsigned(UInt64)
    case negative(UInt64)  // the value is -1 - n
    case bytes(Data)
    case text(String)
    case array([CBOR])
    case map([CBOR: CBOR])
    case bool(Bool)
    case null

    public static let maximumDepth = 8

    public struct Malformed: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// Decodes one item from the start of `data`; `rest` is what follows it.
    public static func decode(_ data: Data) throws(Malformed) -> (item: CBOR, rest: Data) {
        var reader = Reader(bytes: [UInt8](data))
        let item = try reader.item(depth: 0)
        return (item, Data(reader.bytes[reader.offset...]))
    }

    /// The integer, for keys such as COSE's `1`, `3`, `-1`.
    public var integer: Int64? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let value): value < UInt64(Int64.max) ? -1 - Int64(value) : nil
        default: nil
        }
    }

    public subscript(key: Int64) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))]
    }

    public subscript(key: String) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries[.text(key)]
    }

    public var data: Data? {
        if case .bytes(let data) = self { return data }
        return nil
    }

    public var string: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func byte() throws(Malformed) -> UInt8 {
            guard offset < bytes.count else { throw Malformed(description: "the CBOR ends early") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func argument(_ info: UInt8) throws(Malformed) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24...27:
                var value: UInt64 = 0
                for _ in 0..<(1 << (info - 24)) { value = value << 8 | UInt64(try byte()) }
                return value
            default: throw Malformed(description: "CBOR of indefinite or reserved length is not read")
            }
        }

        mutating func take(_ count: UInt64) throws(Malformed) -> ArraySlice<UInt8> {
            guard count <= UInt64(bytes.count - offset) else { throw Malformed(description: "a CBOR string is longer than its input") }
            defer { offset += Int(count) }
            return bytes[offset..<offset + Int(count)]
        }

        mutating func item(depth: Int) throws(Malformed) -> CBOR {
            guard depth <= CBOR.maximumDepth else { throw Malformed(description: "CBOR nested deeper than \(CBOR.maximumDepth)") }
            let initial = try byte()
            let info = initial & 0x1F
            switch initial >> 5 {
            case 0: return .unsigned(try argument(info))
            case 1: return .negative(try argument(info))
            case 2: return .bytes(Data(try take(try argument(info))))
            case 3:
                guard let text = String(bytes: try take(try argument(info)), encoding: .utf8) else {
                    throw Malformed(description: "a CBOR text string is not UTF-8")
                }
                return .text(text)
            case 4:
                let count = try argument(info)
                // Each item takes a byte at least: a count beyond the input is refused before anything is reserved.
                guard count <= UInt64(bytes.count - offset) else { throw Malformed(description: "a CBOR array is longer than its input") }
                var items: [CBOR] = []
                for _ in 0..<count { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                let count = try argument(info)
                guard count <= UInt64(bytes.count - offset) / 2 else { throw Malformed(description: "a CBOR map is longer than its input") }
                var entries: [CBOR: CBOR] = [:]
                for _ in 0..<count {
                    let key = try item(depth: depth + 1)
                    guard entries[key] == nil else { throw Malformed(description: "a CBOR map repeats a key") }
                    entries[key] = try item(depth: depth + 1)
                }
                return .map(entries)
            case 7:
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                default: throw Malformed(description: "CBOR simple value \(info) is not read")
                }
            default:
                throw Malformed(description: "CBOR tags are not read")
            }
        }
    }
}
