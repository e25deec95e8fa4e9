import Foundation
import Kuroneko
import KuronekoTestSupport
import Testing

@testable import KuronekoStore

/// The list narrowed in SQL, on both engines: search by the one normalising rule, families, codes, carriers,
/// forecast days, the summary counted by the database, and the columns filled for rows of earlier versions.
@Suite("Watch list queries", .timeLimit(.minutes(10)))
struct WatchListQueryTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)

    func add(_ store: any WatchStore, _ label: String?, _ number: TrackingNumber) async throws {
        _ = try await store.add(number, label: label, owner: .local, webhook: nil, now: now)
    }

    func found(_ store: any WatchStore, _ text: String) async throws -> [String?] {
        var query = WatchQuery()
        query.text = text
        return try await store.watches(owner: .local, matching: query, after: nil, limit: 100, now: now).map(\.label)
    }

    @Test("a search finds variant kanji, full-width and hyphenated digits, half-width kana; % _ \\ mean themselves",
        arguments: StoreEngine.available)
    func search(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let numbers = ValidNumbers.numbers(8)
        try await add(store, "髙橋様 靴", numbers[0])
        try await add(store, "山﨑商店", numbers[1])
        try await add(store, "ｺｰﾋｰ豆 ｾｯﾄ", numbers[2])
        try await add(store, "100% cotton", numbers[3])
        try await add(store, "a_b", numbers[4])
        try await add(store, #"C:\path"#, numbers[5])
        try await add(store, "渡邊", numbers[6])
        try await add(store, "1000 cotton", numbers[7])
        #expect(try await found(store, "高橋") == ["髙橋様 靴"])
        #expect(try await found(store, "髙橋") == ["髙橋様 靴"])
        #expect(try await found(store, "山崎") == ["山﨑商店"])
        #expect(try await found(store, "渡辺") == ["渡邊"])
        #expect(try await found(store, "コーヒー") == ["ｺｰﾋｰ豆 ｾｯﾄ"])
        #expect(try await found(store, "ｾｯﾄ") == ["ｺｰﾋｰ豆 ｾｯﾄ"])
        #expect(try await found(store, "%") == ["100% cotton"])
        #expect(try await found(store, "0%") == ["100% cotton"])
        #expect(try await found(store, "_") == ["a_b"])
        #expect(try await found(store, "a_") == ["a_b"])
        #expect(try await found(store, #"\"#) == [#"C:\path"#])
        #expect(try await found(store, "COTTON") == ["100% cotton", "1000 cotton"])
        // A number's digits, however they are typed.
        let digits = numbers[3].digits
        let fullWidth = String(
            digits.unicodeScalars.map { Character(UnicodeScalar($0.value - 0x30 + 0xFF10)!) })
        let hyphenated = digits.prefix(4) + "-" + digits.dropFirst(4).prefix(4) + "-" + digits.suffix(4)
        let spaced = digits.prefix(4) + " " + digits.dropFirst(4).prefix(4) + " " + digits.suffix(4)
        #expect(try await found(store, fullWidth) == ["100% cotton"])
        #expect(try await found(store, String(hyphenated)) == ["100% cotton"])
        #expect(try await found(store, String(spaced)) == ["100% cotton"])
        #expect(try await found(store, String(fullWidth.suffix(6))) == ["100% cotton"])
        #expect(try await found(store, "存在しない").isEmpty)
        // A label changed is searched by its new text.
        _ = try await store.update(numbers[4], owner: .local, label: .some("髙島屋"), webhook: nil, now: now)
        #expect(try await found(store, "高島屋") == ["髙島屋"])
        #expect(try await found(store, "a_b").isEmpty)
        _ = try await store.remove(numbers[2], owner: .local)
        #expect(try await found(store, "コーヒー").isEmpty)
        if let sqlite = store as? SQLiteWatchStore {
            // The trigram table the triggers keep agrees with the watches it indexes.
            _ = try sqlite.database.writeNow { connection in
                try connection.execute("INSERT INTO watch_search (watch_search) VALUES ('integrity-check')")
            }
        }
    }

    @Test("many keys sharing their start and their end: only the one holding the whole needle is found",
        arguments: StoreEngine.available)
    func keysSharingStartsAndEnds(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let numbers = ValidNumbers.numbers(6)
        // Each holds the needle's last trigrams (321, 054 and 000) somewhere, one holds the needle.
        try await add(store, "090-0005-4321", numbers[0])
        try await add(store, "080-0005-4321", numbers[1])
        try await add(store, "321 054 000 090", numbers[2])
        try await add(store, "A-054321", numbers[3])
        try await add(store, "👨‍👩‍👧 家族の荷物", numbers[4])
        try await add(store, "家族", numbers[5])
        #expect(try await found(store, "09000054321") == ["090-0005-4321"])
        #expect(try await found(store, "0005-4321") == ["090-0005-4321", "080-0005-4321"])
        #expect(try await found(store, "a-054321") == ["A-054321"])
        #expect(try await found(store, "054321") == ["090-0005-4321", "080-0005-4321", "A-054321"])
        // Characters of several scalars: the trigrams are counted in scalars, as the index counts them.
        #expect(try await found(store, "👨‍👩‍👧 家族") == ["👨‍👩‍👧 家族の荷物"])
        #expect(try await found(store, "家族") == ["👨‍👩‍👧 家族の荷物", "家族"])
        #expect(TextMatch.endTrigrams(of: "09000054321") == ["321", "054", "000"])
        // On SQLite a search of three characters or more starts from the trigram table's rows, not the owner's.
        var query = WatchQuery()
        query.text = "A-054321"
        #expect(query.ownerCondition(match: .trigramTable("watch_search", then: "instr")) == "+w.owner = ?")
        #expect(query.ownerCondition(match: .like) == "w.owner = ?")
        query.text = "髙橋"
        #expect(query.ownerCondition(match: .trigramTable("watch_search", then: "instr")) == "w.owner = ?")
        #expect(TextMatch.endTrigrams(of: "ab") == [])
        #expect(TextMatch.endTrigrams(of: "a\u{301}bc") == ["\u{301}bc"])
    }

    @Test("the normal form: NFKC, case, digits joined across hyphens and spaces only between digits")
    func normalForm() {
        #expect(SearchText.normalized("ＡＢＣ１２３") == "abc123")
        #expect(SearchText.normalized("3277－5445－9830") == "327754459830")
        #expect(SearchText.normalized("3277‐5445 9830") == "327754459830")
        #expect(SearchText.normalized("box - 2") == "box - 2")
        #expect(SearchText.normalized("ｶﾞｲﾄﾞ") == "ガイド")
        #expect(SearchText.normalized("齋藤 德永 濵田 國分") == "斎藤 徳永 浜田 国分")
        #expect(SearchText.matches("髙橋", label: "高橋", digits: "327754459830"))
        #expect(!SearchText.matches("高橋", label: nil, digits: "327754459830"))
    }

    @Test("families, codes, carriers and forecast days narrow in the database; the summary counts them",
        arguments: StoreEngine.available)
    func narrowing(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let numbers = ValidNumbers.numbers(6)
        for number in numbers { try await add(store, nil, number) }
        let today = JapanDateTime(now)
        func shipment(_ number: TrackingNumber, _ code: StatusCode, forecast: Bool = false) -> Shipment {
            var shipment = WatchStoreTests.shipment(
                number, code.rawValue, code, terminal: code == .delivered)
            if forecast {
                shipment.scheduledDelivery = ScheduledDelivery(
                    raw: "today", date: JapanDateTime(year: today.year, month: today.month, day: today.day),
                    windowStart: "14:00", windowEnd: "16:00")
            }
            return shipment
        }
        let next: @Sendable (Watch, Shipment) -> Date? = { _, shipment in
            shipment.status.isTerminal ? nil : self.now.addingTimeInterval(3_600)
        }
        try await store.record(shipment(numbers[0], .inTransit), fetchedAt: now, nextCheck: next)
        try await store.record(shipment(numbers[1], .inTransit, forecast: true), fetchedAt: now, nextCheck: next)
        try await store.record(shipment(numbers[2], .outForDelivery, forecast: true), fetchedAt: now, nextCheck: next)
        try await store.record(shipment(numbers[3], .delivered), fetchedAt: now, nextCheck: next)
        try await store.record(shipment(numbers[4], .attemptFailed), fetchedAt: now, nextCheck: next)
        // numbers[5] has no answer yet: pending.
        func listed(_ change: (inout WatchQuery) -> Void) async throws -> [String] {
            var query = WatchQuery()
            change(&query)
            return try await store.watches(owner: .local, matching: query, after: nil, limit: 100, now: now).map(
                \.number.digits)
        }
        #expect(try await listed { $0.families = [.transit] } == [numbers[0].digits, numbers[1].digits])
        #expect(try await listed { $0.families = [.pending] } == [numbers[5].digits])
        #expect(try await listed { $0.families = [.out, .problem] } == [numbers[2].digits, numbers[4].digits])
        #expect(try await listed { $0.codes = [.delivered] } == [numbers[3].digits])
        #expect(try await listed { $0.forecast = .today } == [numbers[1].digits, numbers[2].digits])
        #expect(try await listed { $0.forecast = .tomorrow } == [])
        #expect(try await listed { $0.state = .finished } == [numbers[3].digits])
        #expect(try await listed { $0.carrier = .yamato }.count == 5)
        #expect(try await listed { $0.carrier = .sagawa } == [])
        #expect(
            try await listed {
                $0.families = [.out]
                $0.extraCodes = [.attemptFailed]
            } == [numbers[2].digits, numbers[4].digits])
        // A cursor pages through a narrowed list.
        var transit = WatchQuery()
        transit.families = [.transit]
        let first = try await store.watches(owner: .local, matching: transit, after: nil, limit: 1, now: now)
        let second = try await store.watches(owner: .local, matching: transit, after: first[0].id, limit: 1, now: now)
        #expect(second.map(\.number) == [numbers[1]])

        let summary = try await store.watchSummary(owner: .local, matching: WatchQuery(), now: now)
        #expect(summary.total == 6)
        #expect(summary.active == 5)
        #expect(
            summary.byFamily == [
                "pending": 1, "accepted": 0, "transit": 2, "out": 1, "delivered": 1, "problem": 1, "waiting": 0,
                "returning": 0, "returned": 0,
            ])
        #expect(summary.byCode == ["in_transit": 2, "out_for_delivery": 1, "delivered": 1, "attempt_failed": 1])
        #expect(summary.forecastToday == 2)
        #expect(summary.forecastTomorrow == 0)
        // Another owner's list is counted apart.
        #expect(try await store.watchSummary(owner: WatchOwner(id: "key:9"), matching: WatchQuery(), now: now).total == 0)
        // Removing the finished ones at once: not those checked since the cut-off, then every owner's older ones.
        let dayAgo = now.addingTimeInterval(-86_400)
        #expect(try await store.removeFinished(owner: .local, checkedBefore: dayAgo).isEmpty, "finished today")
        #expect(try await store.forgetFinished(checkedBefore: dayAgo, limit: 10) == 0)
        #expect(try await store.forgetFinished(checkedBefore: now.addingTimeInterval(86_400), limit: 10) == 1)
        #expect(try await store.removeFinished(owner: .local).isEmpty, "gone already")
        #expect(try await store.watchSummary(owner: .local, matching: WatchQuery(), now: now).total == 5)
    }

    @Test("a file of version 7 gets the list columns filled from what it holds")
    func backfill() async throws {
        let path = WatchStoreTests.temporaryPath()
        let old = try SQLiteDatabase(path: path, migrations: Schema.migrations, upTo: 7)
        let number = ValidNumbers.numbers(1)[0]
        var shipment = WatchStoreTests.shipment(number, "輸送中", .inTransit)
        shipment.scheduledDelivery = ScheduledDelivery(
            raw: "12/24", date: JapanDateTime(year: 2026, month: 12, day: 24), windowStart: nil, windowEnd: nil)
        let served = ServedShipment.encode(shipment, fetchedAt: now)
        _ = try await old.write { connection in
            try connection.run(
                "INSERT INTO watches (owner, number, label, created_at, next_check_at) VALUES ('local', ?, '髙橋', 1, 1)",
                [.text(number.digits)])
            try connection.run(
                """
                INSERT INTO shipments (number, json, status_code, status_label, terminal, fetched_at)
                VALUES (?, ?, 'in_transit', '輸送中', 0, 1)
                """, [.text(number.digits), .blob(served)])
        }
        let store = try SQLiteWatchStore(path: path)
        var query = WatchQuery()
        query.families = [.transit]
        query.forecast = .date(year: 2026, month: 12, day: 24)
        query.text = "高橋"
        #expect(try await store.watches(owner: .local, matching: query, after: nil, limit: 10, now: now).map(\.number) == [number])
    }

    @Test("the tallies the triggers keep count what the list holds, through adds, answers, relabels and removals",
        arguments: StoreEngine.available)
    func talliesAgreeWithTheList(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let numbers = ValidNumbers.numbers(40)
        let codes: [StatusCode] = [.infoReceived, .inTransit, .outForDelivery, .delivered, .attemptFailed, .notFound]
        let today = JapanDateTime(now)
        for (index, number) in numbers.enumerated() {
            _ = try await store.add(
                number, label: index % 3 == 0 ? "髙橋 \(index)" : nil, owner: index % 4 == 0 ? WatchOwner(id: "key:2") : .local,
                webhook: nil, now: now)
        }
        // Answers in several rounds: statuses move on, forecasts come and go, some parcels finish.
        for round in 0..<3 {
            for (index, number) in numbers.enumerated() where (index + round) % 2 == 0 {
                let code = codes[(index + round) % codes.count]
                var shipment = WatchStoreTests.shipment(number, code.rawValue, code, terminal: code == .delivered)
                if (index + round) % 3 == 0 {
                    shipment.scheduledDelivery = ScheduledDelivery(
                        raw: "", date: JapanDateTime(year: today.year, month: today.month, day: today.day),
                        windowStart: nil, windowEnd: nil)
                }
                let at = now.addingTimeInterval(Double(round * 60))
                try await store.record(shipment, fetchedAt: at) { _, shipment in
                    shipment.status.isTerminal ? nil : at.addingTimeInterval(600)
                }
            }
        }
        _ = try await store.remove(Array(numbers[5..<9]), owner: .local)
        _ = try await store.removeFinished(owner: WatchOwner(id: "key:2"))
        for owner in [WatchOwner.local, WatchOwner(id: "key:2")] {
            for state in WatchFilter.allCases {
                var query = WatchQuery()
                query.state = state
                let tallied = try await store.watchSummary(owner: owner, matching: query, now: now)
                // The same counts from the watches themselves.
                let watches = try await store.watches(owner: owner, matching: query, after: nil, limit: 1_000, now: now)
                var expected = WatchSummary()
                for watch in watches {
                    let code = watch.latest?.shipment?.status.code
                    expected.total += 1
                    if watch.active { expected.active += 1 }
                    expected.byFamily[WatchFamily(code).rawValue, default: 0] += 1
                    if let code { expected.byCode[code.rawValue, default: 0] += 1 }
                    // Today's as Shipment.arrives(on:) says: out for delivery, or planned today.
                    if watch.active, watch.latest?.shipment?.arrives(on: today) == true {
                        expected.forecastToday += 1
                    }
                }
                #expect(tallied == expected, "\(owner) \(state)")
                // A search counts the same way, from the watches it finds.
                query.text = "髙橋"
                let searched = try await store.watchSummary(owner: owner, matching: query, now: now)
                let found = watches.filter { $0.label?.hasPrefix("髙橋") == true }
                #expect(searched.total == found.count)
            }
        }
    }
}
