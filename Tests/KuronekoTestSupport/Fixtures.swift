import Foundation

/// The test pages: the project's own reconstructed pages, and the third-party real pages read in place.
public enum Fixtures {
    /// The package's root folder.
    public static let packageDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Tests/Fixtures/yamato/current`: the project's own reconstructed pages and `expected.json`.
    public static let currentDirectory = packageDirectory.appendingPathComponent("Tests/Fixtures/yamato/current")

    /// `../shared/fixtures/yamato/real` beside the checkout; never committed (third-party data).
    public static let realDirectory = packageDirectory.deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures/yamato/real")

    public static var realAvailable: Bool {
        FileManager.default.fileExists(atPath: realDirectory.path)
    }

    /// Why the tests that need `realDirectory` skip where it is absent.
    public static let realMissingReason =
        "../shared/fixtures/yamato/real is absent: the third-party real pages are not committed, so these tests skip"

    public struct Case: Sendable, CustomStringConvertible {
        public let name: String
        public let now: Date
        public let shipments: JSON
        public var directory = Fixtures.currentDirectory
        public var description: String { name }

        public var url: URL { directory.appendingPathComponent("\(name).html") }

        public var html: Data {
            get throws { try Data(contentsOf: url) }
        }
    }

    private struct ExpectedEntry: Decodable {
        let now: String
        let shipments: JSON
    }

    /// Every page of `current/` with its reference time and expected shipments, from `expected.json`.
    public static let currentCases: [Case] = cases(in: currentDirectory)
    /// Keys the model gained after the fixtures' expected.json were written: English labels and the change
    /// link (checked on their own).
    public static let keysAddedSinceFixtures: Set<String> = ["label_en", "change_delivery_url"]

    /// `Tests/Fixtures/sagawa/current`: Sagawa's reconstructed pages (this project's own data).
    public static let sagawaCases = cases(in: packageDirectory.appendingPathComponent("Tests/Fixtures/sagawa/current"))
    /// `Tests/Fixtures/japanpost/current`: Japan Post's reconstructed pages (this project's own data).
    public static let japanPostCases = cases(
        in: packageDirectory.appendingPathComponent("Tests/Fixtures/japanpost/current"))

    /// `Tests/Fixtures/NAME/current`: a carrier's reconstructed pages and their expected.json.
    public static func cases(ofCarrier name: String) -> [Case] {
        cases(in: packageDirectory.appendingPathComponent("Tests/Fixtures/\(name)/current"))
    }

    private static func cases(in directory: URL) -> [Case] {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("expected.json")),
            let entries = try? JSONDecoder().decode([String: ExpectedEntry].self, from: data)
        else { return [] }
        let formatter = ISO8601DateFormatter()
        return entries.keys.sorted().compactMap { name in
            guard let entry = entries[name], let now = formatter.date(from: entry.now) else { return nil }
            return Case(name: name, now: now, shipments: entry.shipments, directory: directory)
        }
    }

    /// Every real page and excerpt, for the loud-error rule.
    public static var realPages: [URL] {
        guard let enumerator = FileManager.default.enumerator(at: realDirectory, includingPropertiesForKeys: nil)
        else { return [] }
        return enumerator.compactMap { $0 as? URL }
            .filter { ["html", "txt"].contains($0.pathExtension) }
            .sorted { $0.path < $1.path }
    }
}
