import Foundation
import Kuroneko
import KuronekoTestSupport
import Testing

/// `kuroneko intake` on the shipping-mail corpus: a mail, an mbox, standard input, and `--watch` against the
/// simulator.
@Suite("kuroneko intake", .timeLimit(.minutes(10)))
struct IntakeTests {
    static let corpus = Fixtures.packageDirectory.appendingPathComponent("Tests/Fixtures/mail")

    static func path(_ name: String) -> String { corpus.appendingPathComponent(name).path }

    @Test("one mail: its parcel in a table, with the shop, the order and the evidence; a summary on standard error")
    func table() async throws {
        let outcome = try await KuronekoBinary.run(["intake", Self.path("apple-two-parcels.eml")])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let lines = outcome.standardOutput.split(separator: "\n")
        #expect(lines.count == 3, "\(outcome.standardOutput)")
        #expect(lines[0].hasSuffix("<apple-1@corpus.kuroneko.test>"))
        #expect(lines[1].contains("yamato  Apple Store  W1234567890  (link,label,carrier_named)"))
        #expect(lines[2].contains("japanpost  Apple Store  W1234567890  (label,carrier_named)"))
        #expect(outcome.standardError == "kuroneko: read 1 message, found 2 parcels\n")
        let own = try await KuronekoBinary.run(["intake", Self.path("yodobashi-extreme.eml")])
        #expect(own.standardOutput.contains("no trackable number: ヨドバシエクストリームサービス便 delivers it itself"))
    }

    @Test("an mbox: one JSON object per parcel, every message read; standard input the same")
    func mbox() async throws {
        let outcome = try await KuronekoBinary.run(["intake", "--json", Self.path("three.mbox")])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let objects = try outcome.standardOutput.split(separator: "\n").map { try JSON(data: Data($0.utf8)) }
        #expect(objects.map { $0["message_id"]?.string } == ["amazon-1@corpus.kuroneko.test", "sagawa-1@corpus.kuroneko.test"])
        #expect(objects.allSatisfy { $0.keys.sorted() == ["carrier", "evidence", "message_id", "number", "order", "shop", "subject"] })
        #expect(objects[0]["subject"]?.string == "Amazon.co.jp でのご注文 1 点が発送されました")
        #expect(outcome.standardError == "kuroneko: read 3 messages, found 2 parcels\n")
        let piped = try await KuronekoBinary.run(
            ["intake", "--json", "-"], input: String(decoding: try Data(contentsOf: Self.corpus.appendingPathComponent("three.mbox")), as: UTF8.self))
        #expect(piped.standardOutput == outcome.standardOutput)
    }

    @Test("a mail of 150 numbers: the first 100 taken, and the table and standard error say the rest were not")
    func crowded() async throws {
        let lines = ValidNumbers.numbers(150, from: 69_000_000_000).map { "お問い合わせ伝票番号：\($0.digits)\r\n" }
        let outcome = try await KuronekoBinary.run(["intake", "--json", "-"], input: "Subject: list\r\n\r\n" + lines.joined())
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput.split(separator: "\n").count == 100)
        #expect(outcome.standardError.contains("1 message held more than 100 parcels; only the first 100 of each were taken"))
        let table = try await KuronekoBinary.run(["intake", "-"], input: "Subject: list\r\n\r\n" + lines.joined())
        #expect(table.standardOutput.contains("more than 100 parcels in one mail: only the first 100 are taken"))
    }

    @Test("what a mail's sender wrote is printed with its control and format characters escaped")
    func escaped() async throws {
        let number = ValidNumbers.numbers(1, from: 69_100_000_000)[0].digits
        let mail = "Subject: \u{1B}]52;c;cGF5bG9hZA==\u{07} 発送\u{202E}txt.exe\r\nFrom: shop@example.com\r\n\r\n"
            + "[ショップ名] 黒猫\u{1B}[2J商店\r\nお問い合わせ伝票番号：\(number)\r\n"
        let outcome = try await KuronekoBinary.run(["intake", "-"], input: mail)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(!outcome.standardOutput.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" })
        #expect(outcome.standardOutput.contains("\\u{1b}]52;c;cGF5bG9hZA==\\u{7} 発送\\u{202e}txt.exe"), "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.contains("黒猫\\u{1b}[2J商店"), "\(outcome.standardOutput)")
    }

    @Test("refusals: a missing file, two files")
    func refusals() async throws {
        let missing = try await KuronekoBinary.run(["intake", "/nonexistent/mail.eml"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("intake: \"/nonexistent/mail.eml\" does not exist; expected a saved mail"))
        let two = try await KuronekoBinary.run(["intake", "a.eml", "b.eml"])
        #expect(two.status == 2 && two.standardError.contains("expected one FILE"))
    }

    @Test("through the socket: a 300 KiB mail is taken at /v1/watches/from-mail, 4 MiB and more is 413 there, and other routes keep their 64 KiB")
    func uploadThroughTheSocket() async throws {
        let server = try await ServerProcess(["serve", "--demo", "--port", "0", "--min-interval", "0"])
        defer { server.terminate() }
        let api = SocketClient(port: server.port)
        let mail = try Data(contentsOf: Self.corpus.appendingPathComponent("sagawa-delivered.eml"))
        // A mail of 300 KiB, as shops' mails with their images are.
        let padded = Data("X-Padding: ".utf8) + Data(repeating: 0x61, count: 300 << 10) + Data("\r\n".utf8) + mail
        let taken = try await api.send("POST", "/v1/watches/from-mail", headers: ["Content-Type": "message/rfc822"], body: padded)
        #expect(taken.status == 200, "\(String(decoding: taken.body.prefix(300), as: UTF8.self))")
        #expect(try JSON(data: taken.body)["parcels"]?.elements.count == 1)
        // A declared body over the limit is answered 413 from its headers alone.
        for (path, length) in [("/v1/watches", padded.count), ("/v1/watches/from-mail", (4 << 20) + 1)] {
            let answer = try await RawConnection(port: server.port).request(
                "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: message/rfc822\r\nContent-Length: \(length)\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(path): \(answer.prefix(200))")
        }
    }

    @Test("--watch: every parcel watched, labelled with the shop and the order, checked once; again changes nothing")
    func watch() async throws {
        let simulator = try await ServerProcess(["simulate", "--port", "0"])
        defer { simulator.terminate() }
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("intake-\(UUID().uuidString).sqlite").path
        let arguments = [
            "intake", Self.path("amazon-shipped.eml"), "--watch", "--db", database, "--endpoint",
            simulator.baseURL + "/cgi-bin/tneko", "--min-interval", "0",
        ]
        let outcome = try await KuronekoBinary.runAside(arguments)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("kuroneko: watched 1 new of 1, 1 checked"), "\(outcome.standardError)")
        let listed = try await KuronekoBinary.run(["list", "--all", "--json", "--db", database])
        let watches = try JSON(data: Data(listed.standardOutput.utf8)).elements
        #expect(watches.count == 1)
        #expect(watches.first?["label"]?.string == "Amazon.co.jp 503-1234567-7654321")
        #expect(watches.first?["carrier"]?.string == "yamato")
        #expect(watches.first?["shipment"] != .null)
        let again = try await KuronekoBinary.runAside(arguments)
        #expect(again.standardError.contains("kuroneko: watched 0 new of 1"), "\(again.standardError)")
    }
}
