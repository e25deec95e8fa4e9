import Foundation
import KuronekoTestSupport
import Testing

/// What the sources themselves must hold to (issue 64): the store reached through small protocols by concern and
/// never by a downcast, and identity never carried in a request's headers.
@Suite("source conventions")
struct SourceConventionsTests {
    /// Every Swift file under Sources/, by its path from the package.
    static func sources() throws -> [(path: String, text: String)] {
        let root = Fixtures.packageDirectory.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return try files.filter { $0.pathExtension == "swift" }.map { url in
            (String(url.path.dropFirst(Fixtures.packageDirectory.path.count + 1)), try String(contentsOf: url, encoding: .utf8))
        }
    }

    @Test("every store protocol has at most 25 requirements of its own")
    func smallStoreProtocols() throws {
        var counted: [String: Int] = [:]
        for (path, text) in try Self.sources() where path.hasPrefix("Sources/KuronekoStore/") {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            var current: String?
            for line in lines {
                if let match = line.firstMatch(of: /^public protocol (\w+)[^{]*\{(\})?/) {
                    current = match.output.2 == nil ? String(match.output.1) : nil
                    counted[String(match.output.1)] = 0
                } else if line == "}" {
                    current = nil
                } else if let name = current, line.firstMatch(of: #/^    (func|var)\s/#) != nil {
                    counted[name, default: 0] += 1
                }
            }
        }
        #expect(counted["WatchRecords"] != nil && counted["PeopleStore"] != nil, "\(counted)")
        let large = counted.filter { $0.value > 25 }
        #expect(large.isEmpty, "over 25 requirements: \(large)")
    }

    @Test("no store downcast and no identity header anywhere in Sources/")
    func noDowncastsNoIdentityHeaders() throws {
        for (path, text) in try Self.sources() {
            #expect(text.firstMatch(of: /as[?!] *(any )?(ListStore|WatchStore|AccountStore|[A-Z]\w*Store)\b/) == nil, "\(path)")
            #expect(!text.lowercased().contains("x-kuroneko-"), "\(path)")
        }
    }
}
