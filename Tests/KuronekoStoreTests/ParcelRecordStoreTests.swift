import Foundation
import Kuroneko
import KuronekoStore
import Testing

/// A parcel's record on both engines: kept with the watch, changed part by part, marked handled, found by
/// the shop's order number and by telephone however it is typed, and refused whole when a part is bad.
@Suite("The parcel record in the store", .timeLimit(.minutes(5)))
struct ParcelRecordStoreTests {
    private static let now = Date(timeIntervalSince1970: 1_796_000_000)

    private static var record: ParcelRecord {
        ParcelRecord(
            reference: "ORD-20261201-0042",
            recipient: .init(
                name: "髙橋 花子", telephone: "090-1234-5678", email: "hanako@example.jp", postcode: "１５００００１",
                prefecture: "東京都"),
            shippedOn: "2026/12/1", fields: [.init(name: "品名", value: "靴"), .init(name: "個数", value: "1")])
    }

    @Test(arguments: StoreEngine.available)
    func keptAndFound(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let number = try TrackingNumber(parsing: "327754459830")
        let other = try TrackingNumber(parsing: "800000000004")
        let added = try await store.add(
            number, carrier: nil, label: "冬靴", record: ParcelRecordChange(filling: Self.record), owner: .local,
            webhook: nil, now: Self.now)
        _ = try await store.add(other, carrier: .sagawa, label: "別の荷物", owner: .local, webhook: nil, now: Self.now)
        let kept = try #require(added.watch.record)
        #expect(kept.reference == "ORD-20261201-0042")
        #expect(kept.recipient?.postcode == "150-0001")
        #expect(kept.shippedOn == "2026-12-01")
        #expect(kept.fields.map(\.name) == ["品名", "個数"])
        #expect(try await store.watch(number, owner: .local)?.record == kept)

        // Found by the order number, the name (variant kanji folded) and the telephone however typed; never
        // the other parcel.
        for typed in ["ORD-20261201-0042", "ord-20261201", "高橋", "09012345678", "090-1234-5678", "０９０－１２３４－５６７８",
            "090 1234 5678", "1234-5678", "090(1234)5678"]
        {
            var query = WatchQuery()
            query.text = typed
            let found = try await store.watches(owner: .local, matching: query, after: nil, limit: 10, now: Self.now)
            #expect(found.map(\.number) == [number], "searching \(typed)")
            #expect(try await store.watchSummary(owner: .local, matching: query, now: Self.now).total == 1, "\(typed)")
        }
        // Another owner's parcel is not found by its record.
        var query = WatchQuery()
        query.text = "09012345678"
        #expect(try await store.watches(owner: .key(7), matching: query, after: nil, limit: 10, now: Self.now).isEmpty)
    }

    @Test(arguments: StoreEngine.available)
    func changedPartByPart(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let number = try TrackingNumber(parsing: "327754459830")
        _ = try await store.add(
            number, carrier: nil, label: nil, record: ParcelRecordChange(filling: Self.record), owner: .local,
            webhook: nil, now: Self.now)
        var change = try ParcelRecordChange(json: ["note": "不在2回。\r\n電話済み", "handled": true, "recipient": ["telephone": "03(1234)5678"]])
        var updated = try #require(
            try await store.update(number, owner: .local, label: nil, record: change, webhook: nil, now: Self.now))
        #expect(updated.record?.note == "不在2回。\n電話済み")
        #expect(updated.record?.handled?.by == "local")
        #expect(updated.record?.handled?.at == JapanDateTime(Self.now).iso8601)
        // The parts not named stay.
        #expect(updated.record?.reference == "ORD-20261201-0042")
        #expect(updated.record?.recipient?.name == "髙橋 花子")
        #expect(updated.record?.recipient?.telephone == "03(1234)5678")
        var query = WatchQuery()
        query.text = "0312345678"
        #expect(try await store.watches(owner: .local, matching: query, after: nil, limit: 10, now: Self.now).count == 1)
        query.text = "09012345678"
        #expect(try await store.watches(owner: .local, matching: query, after: nil, limit: 10, now: Self.now).isEmpty)

        // A relabel keeps the record searchable.
        _ = try await store.update(number, owner: .local, label: .some("新しいラベル"), webhook: nil, now: Self.now)
        query.text = "ORD-2026"
        #expect(try await store.watches(owner: .local, matching: query, after: nil, limit: 10, now: Self.now).count == 1)

        // A bad part is refused and nothing is written.
        change = try ParcelRecordChange(json: ["note": "ok"])
        change.recipient["postcode"] = .some("12-34")
        await #expect(throws: ParcelRecordError.self) {
            _ = try await store.update(number, owner: .local, label: nil, record: change, webhook: nil, now: Self.now)
        }
        #expect(try await store.watch(number, owner: .local)?.record?.note == "不在2回。\n電話済み")

        // Unmarked, then forgotten whole.
        change = try ParcelRecordChange(json: ["handled": false])
        updated = try #require(
            try await store.update(number, owner: .local, label: nil, record: change, webhook: nil, now: Self.now))
        #expect(updated.record?.handled == nil)
        updated = try #require(
            try await store.update(
                number, owner: .local, label: nil, record: .forgetting, webhook: nil, now: Self.now))
        #expect(updated.record == nil)
        query.text = "ORD-2026"
        #expect(try await store.watches(owner: .local, matching: query, after: nil, limit: 10, now: Self.now).isEmpty)
    }

    @Test(arguments: StoreEngine.available)
    func addedAgainFillsTheRecord(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let number = try TrackingNumber(parsing: "327754459830")
        _ = try await store.add(
            number, carrier: nil, label: nil, record: ParcelRecordChange(filling: Self.record), owner: .local,
            webhook: nil, now: Self.now)
        let note = try ParcelRecordChange(json: ["note": "要連絡"])
        _ = try await store.update(number, owner: .local, label: nil, record: note, webhook: nil, now: Self.now)
        // The same sheet read again, with a new telephone: the note someone wrote stays.
        var again = Self.record
        again.recipient?.telephone = "080-0000-1111"
        let added = try await store.add(
            number, carrier: nil, label: nil, record: ParcelRecordChange(filling: again), owner: .local, webhook: nil,
            now: Self.now)
        #expect(!added.created)
        let kept = try #require(try await store.watch(number, owner: .local)?.record)
        #expect(kept.note == "要連絡")
        #expect(kept.recipient?.telephone == "080-0000-1111")
    }
}

/// The record's rules, without a store.
@Suite("The parcel record's rules")
struct ParcelRecordRuleTests {
    @Test func refusals() throws {
        let bad: [([String: Any], String)] = [
            (["reference": 12], "record.reference is not a string"),
            (["handled": 1], "record.handled is not true or false"),
            (["recipient": ["phone": "1"]], "record.recipient.phone is not a part of a recipient"),
            (["recipient": ["telephone": "call me"]], "record.recipient.telephone \"call me\" is not a telephone number"),
            (["recipient": ["email": "nobody"]], "record.recipient.email \"nobody\" is not an e-mail address"),
            (["shipped_on": "2026-02-30"], "record.shipped_on \"2026-02-30\" is not a day"),
            (["reference": "A\u{0007}B"], "record.reference contains a control character (U+0007)"),
            (["reference": String(repeating: "x", count: 101)], "record.reference is 101 characters long; at most 100"),
            (["fields": [["name": "a"]]], "record.fields[0] is not {\"name\": text, \"value\": text}"),
            (["fields": Array(repeating: ["name": "a", "value": "b"], count: 31)], "record.fields holds 31 columns"),
            (["colour": "red"], "record.colour is not a part of a record"),
            (["note": "\u{202E}evil"], "record.note contains a control character (U+202E)"),
        ]
        for (json, expected) in bad {
            #expect(throws: ParcelRecordError.self) { _ = try ParcelRecordChange(json: json) }
            do {
                _ = try ParcelRecordChange(json: json)
            } catch {
                #expect(error.description.hasPrefix(expected), "\(error.description)")
            }
        }
        #expect(throws: ParcelRecordError.self) { _ = try ParcelRecordChange(json: "text") }
    }

    @Test func partsAsKept() throws {
        let change = try ParcelRecordChange(json: [
            "reference": "  A-1  ", "recipient": ["postcode": "〒150-0001", "name": "山田\u{3000}太郎"],
            "shipped_on": "2026年12月1日",
        ])
        let record = try #require(try change.apply(to: nil, now: Date(), by: "local"))
        #expect(record.reference == "A-1")
        #expect(record.recipient?.postcode == "150-0001")
        #expect(record.recipient?.name == "山田 太郎")
        #expect(record.shippedOn == "2026-12-01")
        #expect(String(decoding: record.json, as: UTF8.self).hasPrefix(#"{"recipient":{"name":"山田 太郎","postcode":"150-0001"}"#))
        // Nothing left is no record.
        #expect(try ParcelRecordChange(json: ["reference": "   "]).apply(to: nil, now: Date(), by: "local") == nil)
    }
}
