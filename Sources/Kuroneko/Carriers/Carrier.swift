/// A carrier whose tracking pages Kuroneko reads: one of the registered ``CarrierDefinition``s, named by
/// its wire form (`yamato`, `sagawa`, `japanpost`, …). Everything a carrier is (its names, number forms,
/// site, parser, politeness, links and mail hints) lives in its definition, in its own folder under
/// `Carriers/`; ``CarrierRegistry`` lists them.
public struct Carrier: RawRepresentable, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The wire form: `yamato`, `sagawa`, `japanpost`, …
    public let rawValue: String

    /// A registered carrier's wire form; `nil` for any other text.
    public init?(rawValue: String) {
        guard CarrierRegistry.byIdentifier[rawValue] != nil else { return nil }
        self.rawValue = rawValue
    }

    /// For a definition's own constant (checked by the registry's tests, not here).
    init(registered identifier: String) {
        rawValue = identifier
    }

    /// Every registered carrier, in the order a number of several carriers' forms is asked at.
    public static var allCases: [Carrier] { CarrierRegistry.carriers }

    public var description: String { rawValue }

    /// What the carrier is.
    public var definition: CarrierDefinition {
        // Only the registry makes carriers (`init?(rawValue:)` checks, and each definition's constant is in it).
        CarrierRegistry.byIdentifier[rawValue] ?? CarrierRegistry.definitions[0]
    }

    /// The carrier's name as people in Japan know it.
    public var name: String { definition.name }

    /// The carrier's name in English.
    public var englishName: String { definition.englishName }

    /// Reads a carrier's wire form or any of its aliases (`japan-post`, `jp`, `kuroneko`, any case).
    /// - Throws: ``CarrierNameError`` naming the carriers known.
    public init(named name: String) throws(CarrierNameError) {
        let folded = name.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        guard let found = CarrierRegistry.byAlias[folded] else { throw CarrierNameError(name: name) }
        self = found
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try Carrier(named: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A carrier name nobody knows.
public struct CarrierNameError: Error, Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public var description: String {
        "\"\(name.visibleInOneLine.prefix(40))\" is not a carrier; use \(CarrierRegistry.namesInWords)"
    }
}
