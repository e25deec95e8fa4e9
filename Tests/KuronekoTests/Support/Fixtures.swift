import Testing
import Foundation

/// The test pages: the project's own reconstructed pages, and the third-party real pages read in place.
enum Fixtures {
    static let currentDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/current")

    /// `../shared/fixtures/yamato/real` beside the checkout; never committed (third-party data).
    static let realDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures/yamato/real")

    static var realAvailable: Bool {
        FileManager.default.fileExists(atPath: realDirectory.path)
    }

    static let realMissingMessage: Comment =
        "../shared/fixtures/yamato/real is absent: the third-party real pages are not committed, so these tests skip"

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let now: Date
        let shipments: JSON
        var testDescription: String { name }

        var html: Data {
            get throws { try Data(contentsOf: Fixtures.currentDirectory.appendingPathComponent("\(name).html")) }
        }
    }

    private struct ExpectedEntry: Decodable {
        let now: String
        let shipments: JSON
    }

    /// Every page of `current/` with its reference time and expected shipments, from `expected.json`.
    static let currentCases: [Case] = {
        guard let data = try? Data(contentsOf: currentDirectory.appendingPathComponent("expected.json")),
            let entries = try? JSONDecoder().decode([String: ExpectedEntry].self, from: data)
        else { return [] }
        let formatter = ISO8601DateFormatter()
        return entries.keys.sorted().compactMap { name in
            guard let entry = entries[name], let now = formatter.date(from: entry.now) else { return nil }
            return Case(name: name, now: now, shipments: entry.shipments)
        }
    }()

    /// Every real page and excerpt, for the loud-error rule.
    static var realPages: [URL] {
        guard let enumerator = FileManager.default.enumerator(at: realDirectory, includingPropertiesForKeys: nil)
        else { return [] }
        return enumerator.compactMap { $0 as? URL }
            .filter { ["html", "txt"].contains($0.pathExtension) }
            .sorted { $0.path < $1.path }
    }
}
