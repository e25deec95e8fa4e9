import Foundation

/// Any JSON value, compared structurally (key order does not matter).
public enum JSON: Decodable, Equatable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    public init(data: Data) throws {
        self = try JSONDecoder().decode(JSON.self, from: data)
    }

    /// Encodes a value with the library's JSON form and reads it back as a structure.
    public init(encoding value: some Encodable) throws {
        try self.init(data: try JSONEncoder().encode(value))
    }

    /// The value with every `label_en` key removed, to compare against the fixture schema.
    public var withoutEnglishLabels: JSON {
        switch self {
        case .object(let members):
            .object(members.filter { $0.key != "label_en" }.mapValues(\.withoutEnglishLabels))
        case .array(let elements):
            .array(elements.map(\.withoutEnglishLabels))
        default:
            self
        }
    }

    /// The value with every key of `keys` removed, at any depth.
    public func without(_ keys: Set<String>) -> JSON {
        switch self {
        case .object(let members):
            .object(members.filter { !keys.contains($0.key) }.mapValues { $0.without(keys) })
        case .array(let elements):
            .array(elements.map { $0.without(keys) })
        default:
            self
        }
    }

    public subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var int: Int? {
        if case .number(let value) = self, value == value.rounded() { return Int(value) }
        return nil
    }

    /// An object's member names, sorted.
    public var keys: [String] {
        if case .object(let members) = self { return members.keys.sorted() }
        return []
    }

    public var elements: [JSON] {
        if case .array(let elements) = self { return elements }
        return []
    }

    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .array(let elements): "[" + elements.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.keys.sorted().map { "\"\($0)\":\(members[$0]!)" }.joined(separator: ",") + "}"
        }
    }
}
