import Foundation
import KuronekoTestSupport
import Testing

@testable import Kuroneko

/// The wording the second survey found: delays, scheduled mailbox drops, one-digit months, contradictions.
@Suite("Status vocabulary")
struct StatusVocabularyTests {
    /// 2026-05-10 12:00 in Japan.
    private let now = Date(timeIntervalSince1970: 1_778_382_000)
    private let number = ValidNumbers.number(30_000_000_001)

    private func parse(state: String, rows: [FakeTrackingPage.Block.Row]) throws -> Shipment {
        let page = FakeTrackingPage.html(blocks: [.init(number: number, state: state, rows: rows)])
        return try #require(try TrackingPageParser().parse(page, expecting: [number], now: now).first)
    }

    @Test(
        "new labels read the same as the state title and as a history row",
        arguments: [
            ("遅延中", StatusCode.inTransit, "Delayed"),
            ("遅延中（悪天候）", .inTransit, "Delayed"),
            ("遅延中(台風)", .inTransit, "Delayed"),
            ("遅延中（交通事情）", .inTransit, "Delayed"),
            ("投函予定", .inTransit, "Mailbox Delivery Scheduled"),
            ("配達予定", .inTransit, "Delivery Scheduled"),
        ])
    func newLabels(label: String, code: StatusCode, english: String) throws {
        let shipment = try parse(
            state: label,
            rows: [.init("荷物受付", "05月01日 10:00"), .init("発送済み", "05月01日 10:05"), .init(label, "05月02日 08:00")])
        #expect(shipment.status.label == label, "the reason in brackets stays in the Japanese label")
        #expect(shipment.status.code == code)
        #expect(shipment.status.labelEnglish == english)
        #expect(shipment.status.isTerminal == false)
        let row = try #require(shipment.events.last)
        #expect(row.label == label)
        #expect(row.code == code)
        #expect(row.labelEnglish == english)
    }

    @Test("a forecast is not out for delivery, and a delay does not hide what came before")
    func forecastThenDelivered() throws {
        let shipment = try parse(
            state: "投函完了",
            rows: [
                .init("荷物受付", "05月01日 10:00"), .init("遅延中（悪天候）", "05月02日 09:00"),
                .init("投函予定", "05月03日 07:00"), .init("投函完了", "05月05日 13:20"),
            ])
        #expect(shipment.events.map(\.code) == [.infoReceived, .inTransit, .inTransit, .delivered])
        #expect(shipment.status.code == .delivered)
        #expect(shipment.deliveredAt == JapanDateTime(year: 2026, month: 5, day: 5, time: .init(hour: 13, minute: 20)))
    }

    @Test(
        "history dates take one- or two-digit months and days",
        arguments: [
            ("5月02日 15:33", 5, 2), ("5月2日 15:33", 5, 2), ("05月2日 15:33", 5, 2), ("05月02日 15:33", 5, 2),
            ("12月31日 15:33", 12, 31), ("1月1日 15:33", 1, 1),
        ])
    func shortMonths(text: String, month: Int, day: Int) throws {
        let shipment = try parse(state: "輸送中", rows: [.init("輸送中", text)])
        let event = try #require(shipment.events.first)
        // Read on 2026-05-10: 12月31日 and 5月… later than tomorrow belong to the year before.
        let year = month > 5 || (month == 5 && day > 11) ? 2025 : 2026
        #expect(event.at == JapanDateTime(year: year, month: month, day: day, time: .init(hour: 15, minute: 33)))
        #expect(event.dateText == text)
    }

    @Test(
        "dates with three digits or no digits are still refused", arguments: ["123月02日 15:33", "月02日 15:33", "5月日"])
    func badDates(text: String) {
        let error = #expect(throws: TrackingPageError.self) { try parse(state: "輸送中", rows: [.init("輸送中", text)]) }
        #expect(error?.code == .malformedBlock)
        #expect(error?.message.contains("\"\(text)\"") == true)
    }

    @Test(
        "a block saying Yamato does not know the number, yet listing history, is refused",
        arguments: ["伝票番号誤り", "伝票番号未登録"])
    func contradictoryBlock(state: String) {
        let error = #expect(throws: TrackingPageError.self) {
            try parse(state: state, rows: [.init("荷物受付", "05月01日 10:00"), .init("発送済み", "05月01日 10:05")])
        }
        #expect(error?.code == .contradictoryBlock)
        #expect(error?.code.rawValue == "contradictory_block")
        #expect(
            error?.message
                == "parcel block 1 for \(number.formatted) is contradictory: its state \(state) says Yamato does not "
                + "know the number, yet it lists 2 history rows (first: 荷物受付)")
    }

    @Test("the same states without history are answered", arguments: ["伝票番号誤り", "伝票番号未登録"])
    func unknownNumbersWithoutHistory(state: String) throws {
        let shipment = try parse(state: state, rows: [])
        #expect(shipment.events.isEmpty)
        #expect(shipment.status.code == (state == "伝票番号誤り" ? .invalidNumber : .notFound))
    }

    @Test("docs/SCHEMA.md lists every label the vocabulary knows, with its code and English label")
    func documentedTable() throws {
        let schema = try String(
            contentsOf: Fixtures.packageDirectory.appendingPathComponent("docs/SCHEMA.md"), encoding: .utf8)
        let section = try #require(schema.components(separatedBy: "### Every label").dropFirst().first)
        var documented: [String] = []
        for line in section.split(separator: "\n") {
            guard line.hasPrefix("| "), !line.hasPrefix("| label"), !line.hasPrefix("|---") else {
                if !documented.isEmpty { break }
                continue
            }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            documented.append(cells.joined(separator: " | "))
        }
        var known = StatusVocabulary.catalogue.map {
            "\($0.label) | `\($0.meaning.code.rawValue)` | \($0.meaning.english ?? "")"
        }
        // A family is written as its stem and an ellipsis: 持戻…, 遅延中（…）.
        known += StatusVocabulary.families.map {
            let stem = $0.prefix.hasSuffix("（") ? $0.prefix + "…）" : $0.prefix + "…"
            return
                "\(stem) | `\($0.meaning.code.rawValue)` | \($0.meaning.english ?? "") (any label starting \($0.prefix))"
        }
        #expect(documented == known)
    }
}
