/// The carriers Kuroneko reads, each defined in its own folder. A number several carriers' forms accept
/// is asked at them in this order: the carriers with a check digit (and most parcels) first.
public enum CarrierRegistry {
    /// The registration list: one line per carrier.
    public static let definitions: [CarrierDefinition] = [
        .yamato,
        .sagawa,
        .japanPost,
        .fukuyama,
        .seino,
    ]

    public static let carriers = definitions.map(\.carrier)

    static let byIdentifier = Dictionary(uniqueKeysWithValues: definitions.map { ($0.carrier.rawValue, $0) })

    static let byAlias: [String: Carrier] = {
        var aliases: [String: Carrier] = [:]
        for definition in definitions {
            for alias in [definition.carrier.rawValue] + definition.aliases where aliases[alias] == nil {
                aliases[alias] = definition.carrier
            }
        }
        return aliases
    }()

    /// "yamato, sagawa, japanpost, fukuyama or seino".
    public static var namesInWords: String {
        let names = carriers.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + (names.count > 1 ? " or " : "") + (names.last ?? "")
    }

    /// Which carriers each form goes to, in order: "12 digits at Yamato Transport, then Sagawa Express, …;
    /// 10 digits at …; international numbers at Japan Post".
    public static var formsInWords: String {
        let forms: [(TrackingNumber.Format, String)] = [
            (.twelveDigits, "12 digits"), (.tenDigits, "10 digits"), (.elevenDigits, "11 digits"),
            (.thirteenDigits, "13 digits"), (.international, "international numbers"),
        ]
        return forms.compactMap { format, words -> String? in
            let names = definitions.filter { $0.numberForms.contains { $0.format == format } }.map(\.englishName)
            return names.isEmpty ? nil : words + " at " + names.joined(separator: ", then ")
        }.joined(separator: "; ")
    }

    /// The carriers that may know a number, in the order they are asked.
    public static func candidates(for number: TrackingNumber) -> [Carrier] {
        let entry = candidatesByForm[number.format] ?? (passing: [], failing: [])
        return number.passesMod7 ? entry.passing : entry.failing
    }

    /// By form, the carriers of a number whose modulo-7 check passes and of one whose check fails.
    private static let candidatesByForm: [TrackingNumber.Format: (passing: [Carrier], failing: [Carrier])] = {
        let formats: [TrackingNumber.Format] = [.twelveDigits, .tenDigits, .elevenDigits, .thirteenDigits, .international]
        return Dictionary(uniqueKeysWithValues: formats.map { format in
            func carriers(passing: Bool) -> [Carrier] {
                definitions.filter { definition in
                    definition.numberForms.contains { $0.format == format && ($0.check == .none || passing) }
                }.map(\.carrier)
            }
            return (format, (carriers(passing: true), carriers(passing: false)))
        })
    }()
}
