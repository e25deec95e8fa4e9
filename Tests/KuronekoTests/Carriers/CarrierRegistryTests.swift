import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// The carrier registry: one definition per carrier, in its own folder, listed once; no other source file
/// names a carrier added since the registry (Fukuyama and Seino are its proof).
@Suite("Carrier registry")
struct CarrierRegistryTests {
    @Test("every carrier is registered once, its wire form and aliases unambiguous, its links well formed")
    func registry() throws {
        let ids = CarrierRegistry.definitions.map(\.carrier.rawValue)
        #expect(ids == ["yamato", "sagawa", "japanpost", "fukuyama", "seino"])
        #expect(Set(ids).count == ids.count)
        #expect(Carrier.allCases == CarrierRegistry.carriers)
        let aliases = CarrierRegistry.definitions.flatMap(\.aliases) + ids
        #expect(Set(aliases).count == aliases.count, "an alias names two carriers")
        let sample = try TrackingNumber(parsing: "3277-5445-9830")
        for definition in CarrierRegistry.definitions {
            #expect(Carrier(rawValue: definition.carrier.rawValue) == definition.carrier)
            #expect(try Carrier(named: definition.carrier.rawValue.uppercased()) == definition.carrier)
            #expect(!definition.numberForms.isEmpty)
            #expect(definition.trackingLink.url.hasPrefix("https://"), "\(definition.carrier)")
            #expect(definition.trackingLink.url(for: sample) != nil, "\(definition.carrier)")
            #expect(definition.site(definition.defaultEndpoint).carrier == definition.carrier)
            #expect(definition.politeness.maxConcurrentRequests >= 1)
            #expect(definition.politeness.minimumRequestInterval >= .seconds(1), "polite to \(definition.carrier)")
        }
        #expect(Carrier(rawValue: "dhl") == nil)
        let error = #expect(throws: CarrierNameError.self) { try Carrier(named: "dhl") }
        #expect(error?.description == "\"dhl\" is not a carrier; use yamato, sagawa, japanpost, fukuyama or seino")
    }

    @Test("a carrier's JSON is its wire form; any registered name reads back, an unknown one is refused")
    func json() throws {
        #expect(String(decoding: try JSONEncoder().encode([Carrier.japanPost, .seino]), as: UTF8.self) == "[\"japanpost\",\"seino\"]")
        #expect(try JSONDecoder().decode([Carrier].self, from: Data("[\"fukuyama\",\"jp\"]".utf8)) == [.fukuyama, .japanPost])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Carrier.self, from: Data("\"dhl\"".utf8)) }
    }

    /// The words that name a carrier added after the registry: its wire form, its names in both languages,
    /// its domain and brand.
    private static let newCarrierWords = [
        "fukuyama": ["fukuyama", "fukutsu", "福山"],
        "seino": ["seino", "西濃", "カンガルー"],
    ]

    /// Where those words may stand: the carrier's own folders, and the two registration lists.
    private static func allowed(_ path: String, carrier: String) -> Bool {
        let folder = "/Carriers/" + carrier.prefix(1).uppercased() + carrier.dropFirst() + "/"
        return path.contains(folder)
            || path == "Sources/Kuroneko/Carriers/CarrierRegistry.swift"
            || path == "Sources/KuronekoSimulator/Carriers/SimulatedCarriers.swift"
    }

    @Test("Fukuyama and Seino touch no source file outside their folders and the registration lists")
    func touchedFiles() throws {
        let root = Fixtures.packageDirectory
        let sources = root.appendingPathComponent("Sources")
        let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var checked = 0
        var offending: [String] = []
        for case let url as URL in enumerator where ["swift", "js", "css", "html", "json"].contains(url.pathExtension) {
            let path = String(url.path.dropFirst(root.path.count + 1))
            let text = try String(contentsOf: url, encoding: .utf8).lowercased()
            checked += 1
            for (carrier, words) in Self.newCarrierWords where !Self.allowed(path, carrier: carrier) {
                if let word = words.first(where: { text.contains($0.lowercased()) }) { offending.append("\(path): \(word)") }
            }
        }
        #expect(checked > 100)
        #expect(offending.isEmpty, "a new carrier is named outside its folder: \(offending)")
    }
}
