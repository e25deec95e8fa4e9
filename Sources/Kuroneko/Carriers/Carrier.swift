/// A carrier whose tracking pages Kuroneko reads.
public enum Carrier: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// ヤマト運輸 (クロネコヤマト): 宅急便, ネコポス and the rest.
    case yamato
    /// 佐川急便.
    case sagawa
    /// 日本郵便: ゆうパック, ゆうパケット, レターパック, 書留 and international mail.
    case japanPost = "japanpost"

    /// The wire form: `yamato`, `sagawa`, `japanpost`.
    public var description: String { rawValue }

    /// The carrier's name as people in Japan know it.
    public var name: String {
        switch self {
        case .yamato: "ヤマト運輸"
        case .sagawa: "佐川急便"
        case .japanPost: "日本郵便"
        }
    }

    /// The carrier's name in English.
    public var englishName: String {
        switch self {
        case .yamato: "Yamato Transport"
        case .sagawa: "Sagawa Express"
        case .japanPost: "Japan Post"
        }
    }

    /// Reads `yamato`, `sagawa`, `japanpost` (also `japan-post`, `jp`, any case).
    /// - Throws: ``CarrierNameError`` naming the carriers known.
    public init(named name: String) throws(CarrierNameError) {
        let folded = name.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        switch folded {
        case "yamato", "kuroneko": self = .yamato
        case "sagawa": self = .sagawa
        case "japanpost", "jp", "yubin": self = .japanPost
        default: throw CarrierNameError(name: name)
        }
    }
}

/// A carrier name nobody knows.
public struct CarrierNameError: Error, Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public var description: String {
        "\"\(name)\" is not a carrier; use yamato, sagawa or japanpost"
    }
}
