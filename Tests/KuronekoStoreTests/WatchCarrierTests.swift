import Foundation
import Kuroneko
import KuronekoStore
import Synchronization
import Testing

/// Watches and their carriers, on both engines: what the migration makes of the watches before carriers,
/// a carrier named or found, and a number watched at one carrier only.
@Suite("Watches and carriers", .timeLimit(.minutes(10)))
struct WatchCarrierTests {
    private static let now = Date(timeIntervalSince1970: 1_790_000_000)

    private static func shipment(_ number: TrackingNumber, _ carrier: Carrier, _ code: StatusCode) -> Shipment {
        Shipment(
            trackingNumber: number, carrier: carrier,
            status: ShipmentStatus(
                code: code, label: code == .notFound ? "該当なし" : "輸送中", labelEnglish: nil, summary: nil, note: nil,
                isTerminal: false),
            product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
    }

    @Test("the watches made before carriers become Yamato's", arguments: StoreEngine.available)
    func migratedAsYamato(engine: StoreEngine) async throws {
        let made = try await engine.makeStore()
        // The database as the previous version left it: no carrier column, schema version 4, one watch.
        switch engine {
        case .sqlite:
            for trigger in [
                "watches_tally_in", "watches_tally_out", "watches_tally_moved", "watches_search_in",
                "watches_search_out", "watches_search_moved", "watches_changed_in", "watches_changed",
                "watches_changed_out",
            ] {
                try made.write("DROP TRIGGER \(trigger)", [[]])
            }
            try made.write("DROP TABLE watch_search", [[]])
            try made.write("DROP TABLE watch_change_counter", [[]])
        case .postgres:
            try made.write("DROP TRIGGER watches_tallied ON watches", [[]])
            try made.write("DROP FUNCTION kuroneko_tally_watches", [[]])
            try made.write("DROP TRIGGER watches_changed ON watches", [[]])
            try made.write("DROP TRIGGER watches_changed_out ON watches", [[]])
            try made.write("DROP FUNCTION kuroneko_watch_changed", [[]])
            try made.write("DROP SEQUENCE watch_change_seq", [[]])
        }
        for index in [
            "watches_arriving", "watches_owner", "watches_owner_active", "watches_owner_family", "watches_owner_code",
            "watches_owner_carrier", "watches_owner_forecast", "watches_late", "watches_reminder",
            "watches_owner_overdue", "watches_owner_stalled", "watches_owner_changed",
        ] {
            try made.write("DROP INDEX \(index)", [[]])
        }
        for column in [
            "arriving_at", "arriving_window", "announced_window", "claimed_until", "status_code", "family",
            "forecast_date", "last_event_at", "search_text", "dated", "stalled_at", "page_refused_at", "source", "record",
            "due_at", "overdue_at", "reminder_at", "reminder_key", "reminded_key", "changed_seq", "changed_at",
            "answer_digest",
        ] {
            try made.write("ALTER TABLE watches DROP COLUMN \(column)", [[]])
        }
        for column in ["list_id", "role", "made_by"] {
            try made.write("ALTER TABLE api_keys DROP COLUMN \(column)", [[]])
        }
        switch engine {
        case .sqlite:
            try made.write("ALTER TABLE watches DROP COLUMN carrier", [[]])
            for table in [
                "used_challenges", "morning_summaries", "passkeys", "audit_log", "invitations", "sessions", "members", "users", "lists",
                "customer_notices", "notice_settings", "notice_stops", "channel_attempts", "channel_outbox", "channels", "watch_tallies", "refused_pages", "carrier_pages", "mailboxes",
                "mailbox_messages", "watch_removals", "watch_removals_forgotten",
            ] {
                try made.write("DROP TABLE \(table)", [[]])
            }
            try made.write("PRAGMA user_version = 4", [[]])
        case .postgres:
            try made.write("ALTER TABLE watches DROP COLUMN carrier", [[]])
            try made.write("DROP TABLE used_challenges, passkeys, audit_log, invitations, sessions, members, users, lists", [[]])
            try made.write("DROP TABLE customer_notices, notice_settings, notice_stops, morning_summaries", [[]])
            try made.write("DROP TABLE channel_attempts, channel_outbox, channels", [[]])
            try made.write(
                "DROP TABLE watch_tallies, refused_pages, carrier_pages, mailboxes, mailbox_messages, watch_removals, "
                    + "watch_removals_forgotten", [[]])
            // The shared budget as it was before each carrier had its own.
            for statement in [
                "ALTER TABLE upstream_slots DROP CONSTRAINT upstream_slots_pkey",
                "ALTER TABLE upstream_slots DROP COLUMN carrier", "ALTER TABLE upstream_slots ADD PRIMARY KEY (slot)",
                "ALTER TABLE upstream_pacing DROP CONSTRAINT upstream_pacing_pkey",
                "ALTER TABLE upstream_pacing DROP COLUMN carrier", "ALTER TABLE upstream_pacing ADD PRIMARY KEY (id)",
                "ALTER TABLE upstream_pacing ADD CONSTRAINT upstream_pacing_id_check CHECK (id = 1)",
            ] {
                try made.write(statement, [[]])
            }
            try made.write("DELETE FROM kuroneko_schema WHERE version >= 5", [[]])
        }
        try made.write(
            "INSERT INTO watches (owner, number, created_at, active, next_check_at) VALUES (?, ?, ?, 1, ?)",
            [
                [
                    .text("local"), .text("327754459830"), .real(Self.now.timeIntervalSince1970),
                    .real(Self.now.timeIntervalSince1970),
                ]
            ])
        let lines = LineLog()
        let reopened = try made.anotherAnnouncing { lines.add($0) }
        #expect(lines.all.contains { $0.contains("from=4 to=5 summary=adds the carrier") })
        let watch = try await #require(try reopened.watch(try TrackingNumber(parsing: "327754459830"), owner: .local))
        #expect(watch.carrier == .yamato)
    }

    @Test(
        "a carrier named is kept; a watch without one takes the carrier that finds it", arguments: StoreEngine.available
    )
    func namedAndFound(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let named = try TrackingNumber(parsing: "812345678900")
        let open = try TrackingNumber(parsing: "912345678904")
        _ = try await store.add(named, carrier: .sagawa, label: nil, owner: .local, webhook: nil, now: Self.now)
        _ = try await store.add(open, carrier: nil, label: nil, owner: .local, webhook: nil, now: Self.now)
        #expect(try await store.watch(open, owner: .local)?.carrier == nil)
        // Yamato's answer says nothing of a watch followed at Sagawa: it is not recorded for it.
        let yamato = try await store.record(Self.shipment(named, .yamato, .inTransit), fetchedAt: Self.now) { _, _ in Self.now
        }
        #expect(yamato.isEmpty)
        #expect(try await store.watch(named, owner: .local)?.checkedAt == nil)
        _ = try await store.record(Self.shipment(named, .sagawa, .inTransit), fetchedAt: Self.now) { _, _ in Self.now }
        #expect(try await store.watch(named, owner: .local)?.checkedAt != nil)
        // Not found anywhere yet: the open watch stays open; found at Japan Post: it is Japan Post's.
        _ = try await store.record(Self.shipment(open, .yamato, .notFound), fetchedAt: Self.now) { _, _ in Self.now }
        #expect(try await store.watch(open, owner: .local)?.carrier == nil)
        let later = Self.now.addingTimeInterval(60)
        _ = try await store.record(Self.shipment(open, .japanPost, .inTransit), fetchedAt: later) { _, _ in later }
        #expect(try await store.watch(open, owner: .local)?.carrier == .japanPost)
        let due = try await store.claimDueChecks(now: later, horizon: later, limit: 10, leaseUntil: later)
        #expect(Set(due) == [DueCheck(number: named, carrier: .sagawa), DueCheck(number: open, carrier: .japanPost)])
    }

    @Test("a number is watched at one carrier: adding it at another is refused", arguments: StoreEngine.available)
    func oneCarrierPerNumber(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let number = try TrackingNumber(parsing: "812345678900")
        _ = try await store.add(number, carrier: .sagawa, label: nil, owner: .local, webhook: nil, now: Self.now)
        await #expect(throws: WatchStoreError.watchedAtAnotherCarrier(number.formatted, .sagawa)) {
            try await store.add(number, carrier: .japanPost, label: nil, owner: .local, webhook: nil, now: Self.now)
        }
        // The same carrier, or none named, is the watch there is.
        #expect(
            try await store.add(number, carrier: .sagawa, label: nil, owner: .local, webhook: nil, now: Self.now).created
                == false)
        #expect(try await store.add(number, label: nil, owner: .local, webhook: nil, now: Self.now).watch.carrier == .sagawa)
    }
}

/// Lines told to a closure from any thread.
final class LineLog: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
