import Foundation
import Kuroneko
import KuronekoTestSupport
import Synchronization
import Testing
import KuronekoCrypto

@testable import KuronekoNotify
@testable import KuronekoServer
@testable import KuronekoStore

/// The watch store on both engines (SQLite on temporary files, PostgreSQL in a database of each test's
/// own): migrations, watches, changes, the outbox, keys.
@Suite("Watch store", .timeLimit(.minutes(10)))
struct WatchStoreTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).sqlite").path
    }

    static func shipment(_ number: TrackingNumber, _ label: String, _ code: StatusCode, terminal: Bool = false)
        -> Shipment
    {
        Shipment(
            trackingNumber: number,
            status: ShipmentStatus(
                code: code, label: label, labelEnglish: nil, summary: nil, note: nil, isTerminal: terminal),
            product: "宅急便", scheduledDelivery: nil, events: [], deliveredAt: nil)
    }

    let now = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("a new file is created mode 0600 at the last version; an older file is brought up to it, data kept")
    func migrations() async throws {
        let fresh = Self.temporaryPath()
        let store = try SQLiteWatchStore(path: fresh)
        #expect(try store.database.version == Schema.migrations.count)
        let mode = try FileManager.default.attributesOfItem(atPath: fresh)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        for version in 1..<Schema.migrations.count {
            let path = Self.temporaryPath()
            let old = try SQLiteDatabase(path: path, migrations: Schema.migrations, upTo: version)
            #expect(try old.version == version)
            _ = try await old.write { connection in
                try connection.run(
                    "INSERT INTO watches (owner, number, created_at, next_check_at) VALUES ('local', '327754459830', 1, 1)"
                )
            }
            let upgraded = try SQLiteWatchStore(path: path)
            #expect(try upgraded.database.version == Schema.migrations.count)
            #expect(try await upgraded.watch(TrackingNumber(parsing: "327754459830"), owner: .local) != nil)
            #expect(try upgraded.database.integrityCheck() == ["ok"])
        }
    }

    @Test("every migration says what it does before it runs, from the version the file is at")
    func migrationsAnnounced() async throws {
        let path = Self.temporaryPath()
        let lines = Mutex<[String]>([])
        _ = try SQLiteDatabase(
            path: path, migrations: Schema.migrations, upTo: 2, log: StoreLog.lines { line in lines.withLock { $0.append(line) } }
        )
        #expect(
            lines.withLock { $0 } == ["creating the watch list db=\(path) schema_version=2"], "a new file: one line")
        lines.withLock { $0.removeAll() }
        _ = try SQLiteWatchStore(path: path, log: StoreLog.lines { line in lines.withLock { $0.append(line) } })
        let expected: [String] = [
            "migrating the watch list db=\(path) from=2 to=3 summary=adds API keys and their calendar tokens (stored hashed)",
            "migrating the watch list db=\(path) from=3 to=4 summary=adds the end of a subscription its receiver refused "
                + "(410 Gone) and the operator's settings",
            "migrating the watch list db=\(path) from=4 to=5 summary=adds the carrier each watch is followed at (every "
                + "watch made before is Yamato's)",
            "migrating the watch list db=\(path) from=5 to=6 summary=adds notification channels, their outbox and the log "
                + "of their attempts, and each watch's next forecast window",
            "migrating the watch list db=\(path) from=6 to=7 summary=adds the end of each watch's claim by a server, so polls "
                + "can be filled with numbers due soon",
            "migrating the watch list db=\(path) from=7 to=8 summary=adds what a list is narrowed by to each watch (status, "
                + "family, forecast day, last event, search text), indexed, and fills it for every watch already there; "
                + "counts each owner's watches",
            "migrating the watch list db=\(path) from=8 to=9 summary=adds what the deliverer keeps of each channel (why it is "
                + "failing, LINE's quota, a digest, a hold)",
            "migrating the watch list db=\(path) from=9 to=10 summary=adds when each watch was found stalled (no new event for "
                + "longer than its status allows)",
            "migrating the watch list db=\(path) from=10 to=11 summary=adds when a watch's carrier page was not understood, the "
                + "refused pages kept (masked) as evidence, and each carrier's page state",
            "migrating the watch list db=\(path) from=11 to=12 summary=adds the mailboxes read for shipping mails (where each "
                + "was read up to, and since when one fails) and the mail each watch came from",
            "migrating the watch list db=\(path) from=12 to=13 summary=adds the Message-IDs of each mailbox's mails already "
                + "turned into watches, so a folder read again adds none twice",
            "migrating the watch list db=\(path) from=13 to=14 summary=adds each watch's parcel record (the shop's reference, "
                + "the recipient, the ship date, a note, handled, other columns), when it is late, and the reminder the "
                + "day before a parcel kept after a missed delivery goes back",
            "migrating the watch list db=\(path) from=14 to=15 summary=adds each watch's place in the list's sequence of "
                + "changes (what a person would see, not a check that found the same answer) and the removals of the "
                + "last 7 days, so a page asks only what changed",
            "migrating the watch list db=\(path) from=15 to=16 summary=adds customer notices: each owner's settings, the notices "
                + "queued for parcels' recipients and their outcome, and the addresses that asked for no more",
            "migrating the watch list db=\(path) from=16 to=17 summary=adds people and their sign-in (passwords stored as scrypt "
                + "hashes, sessions and invitations stored hashed), lists with members and roles (today's watch list "
                + "becomes the list of the first account made), each list's audit log, and a key's list and role",
            "migrating the watch list db=\(path) from=17 to=18 summary=adds the member a channel belongs to (their own phone, "
                + "quiet hours and events) and the device's name",
            "migrating the watch list db=\(path) from=18 to=19 summary=makes each list that exists a list people can share: a "
                + "key made on the command line keeps its own list, named by the key, and the admins of today's list "
                + "become its admins",
            "migrating the watch list db=\(path) from=19 to=20 summary=adds each person's passkeys (the credential's public key "
                + "and counter, its name, when made and last used)",
            "migrating the watch list db=\(path) from=20 to=21 summary=adds the morning summary's time of each channel that "
                + "hears it, and the last day one was made for it",
            "migrating the watch list db=\(path) from=21 to=22 summary=adds the passkey challenges already answered, until they "
                + "expire, so that each is taken once",
        ]
        #expect(lines.withLock { $0 } == expected)
        lines.withLock { $0.removeAll() }
        _ = try SQLiteWatchStore(path: path, log: StoreLog.lines { line in lines.withLock { $0.append(line) } })
        #expect(lines.withLock { $0 }.isEmpty, "a file at the last version migrates nothing")
        #expect(SchemaVersions.latest == Schema.migrations.count)
    }

    @Test(
        "a database from a newer Kuroneko is refused with both versions named, and left untouched",
        arguments: StoreEngine.available)
    func newerSchemaRefused(engine: StoreEngine) async throws {
        let newer = SchemaVersions.latest + 1
        let number = ValidNumbers.numbers(1)[0]
        let opened: EngineStore
        do {
            opened = try await engine.makeStore()
            _ = try await opened.store.add(number, label: "kept", owner: .local, webhook: nil, now: now)
            switch engine {
            case .sqlite: try opened.write("PRAGMA user_version = \(newer)", [[]])
            case .postgres:
                try opened.write("INSERT INTO kuroneko_schema (version) VALUES (?)", [[.integer(Int64(newer))]])
            }
        }
        let path = (opened.store as? SQLiteWatchStore)?.database.path
        let files = { (path: String) in
            [path, path + "-wal"].map { FileManager.default.contents(atPath: $0) ?? Data() }
        }
        let before = path.map(files)
        let announced = Mutex<[String]>([])
        let error = #expect(throws: NewerSchemaError.self) {
            _ = try opened.another(announce: { line in announced.withLock { $0.append(line) } })
        }
        #expect(error?.found == newer && error?.supported == SchemaVersions.latest)
        #expect(
            error?.description.contains(
                "is at schema version \(newer), written by a newer Kuroneko; this one (\(KuronekoVersion.version)) knows "
                    + "versions up to \(SchemaVersions.latest) and left the database untouched") == true)
        #expect(announced.withLock { $0 }.isEmpty)
        if let path, let before { #expect(files(path) == before, "the file and its write-ahead log are unchanged") }
        #expect(try await opened.store.watch(number, owner: .local)?.label == "kept")
    }

    @Test(
        "the first status is a baseline; each different one after it is one change, with its webhook queued",
        arguments: StoreEngine.available)
    func changesAndOutbox(engine: StoreEngine) async throws {
        let engineStore = try await engine.makeStore()
        let store = engineStore.store
        let number = ValidNumbers.numbers(1)[0]
        let added = try await store.add(
            number, label: "靴", owner: .local, webhook: ("http://example.com/h", "s3cret"), now: now)
        #expect(added.created && added.webhookSecret == "s3cret")
        let again = try await store.add(
            number, label: nil, owner: .local, webhook: ("http://example.com/other", "x"), now: now)
        #expect(!again.created && again.webhookSecret == nil && again.watch.label == "靴")
        let next: @Sendable (Watch, Shipment) -> Date? = { _, _ in self.now.addingTimeInterval(600) }
        #expect(try await store.record(Self.shipment(number, "荷物受付", .infoReceived), fetchedAt: now, nextCheck: next).isEmpty)
        #expect(try await store.record(Self.shipment(number, "荷物受付", .infoReceived), fetchedAt: now, nextCheck: next).isEmpty)
        let changes = try await store.record(
            Self.shipment(number, "輸送中", .inTransit), fetchedAt: now.addingTimeInterval(60), nextCheck: next)
        #expect(changes.count == 1)
        let change = try #require(changes.first)
        #expect(String(decoding: change.previous, as: UTF8.self).contains("荷物受付"))
        let due = try await store.claimDeliveries(
            at: now.addingTimeInterval(60), limit: 10, leaseUntil: now.addingTimeInterval(120))
        #expect(due.map(\.change.id) == [change.id])
        #expect(due.first?.url == "http://example.com/h" && due.first?.secret == "s3cret")
        #expect(try await store.changes(of: number, owner: .local)?.map(\.id) == [change.id])
        #expect(try await store.changes(of: number, owner: WatchOwner(id: "key:9")) == nil, "another owner sees nothing")
    }

    @Test(
        "deliveries of one webhook go in order: the next waits until the one before is delivered or given up",
        arguments: StoreEngine.available)
    func outboxOrder(engine: StoreEngine) async throws {
        let engineStore = try await engine.makeStore()
        let store = engineStore.store
        let number = ValidNumbers.numbers(1)[0]
        _ = try await store.add(number, label: nil, owner: .local, webhook: ("http://example.com/h", "k"), now: now)
        let next: @Sendable (Watch, Shipment) -> Date? = { _, _ in self.now }
        try await store.record(Self.shipment(number, "荷物受付", .infoReceived), fetchedAt: now, nextCheck: next)
        let first = try await store.record(Self.shipment(number, "輸送中", .inTransit), fetchedAt: now, nextCheck: next)
        let second = try await store.record(Self.shipment(number, "配達中", .outForDelivery), fetchedAt: now, nextCheck: next)
        var due = try await store.claimDeliveries(at: now, limit: 10, leaseUntil: now.addingTimeInterval(60))
        #expect(due.map(\.change.id) == first.map(\.id))
        try await store.recordAttempt(
            due[0].outboxID, at: now, status: 500, error: "down", durationMilliseconds: 3, delivered: false,
            retryAt: now.addingTimeInterval(10))
        #expect(
            try await store.claimDeliveries(at: now.addingTimeInterval(5), limit: 10, leaseUntil: now).isEmpty,
            "the second waits its turn")
        due = try await store.claimDeliveries(
            at: now.addingTimeInterval(10), limit: 10, leaseUntil: now.addingTimeInterval(70))
        #expect(due.map(\.change.id) == first.map(\.id) && due[0].attempts == 1)
        try await store.recordAttempt(
            due[0].outboxID, at: now, status: 204, error: nil, durationMilliseconds: 3, delivered: true, retryAt: nil)
        #expect(
            try await store.claimDeliveries(at: now.addingTimeInterval(10), limit: 10, leaseUntil: now.addingTimeInterval(70))
                .map(\.change.id) == second.map(\.id))
        let records = try await #require(try store.deliveries(of: number, owner: .local))
        #expect(records.map(\.status) == [500, 204])
        #expect(try await store.pendingDeliveryCount() == 1)
    }

    @Test(
        "a terminal status ends the watch; removing it removes its history and pending deliveries",
        arguments: StoreEngine.available)
    func finishAndRemove(engine: StoreEngine) async throws {
        let engineStore = try await engine.makeStore()
        let store = engineStore.store
        let number = ValidNumbers.numbers(1)[0]
        _ = try await store.add(number, label: nil, owner: .local, webhook: ("http://example.com/h", "k"), now: now)
        let schedule = PollSchedule()
        let next: @Sendable (Watch, Shipment) -> Date? = { watch, shipment in
            schedule.nextCheck(for: shipment, watchCreatedAt: watch.createdAt, now: self.now, random: 0.5)
        }
        try await store.record(Self.shipment(number, "輸送中", .inTransit), fetchedAt: now, nextCheck: next)
        let later = now.addingTimeInterval(1_800 * 1.1)
        #expect(
            try await store.claimDue(now: later, horizon: later, limit: 10, leaseUntil: later.addingTimeInterval(300))
                == [number])
        try await store.record(Self.shipment(number, "配達完了", .delivered, terminal: true), fetchedAt: now, nextCheck: next)
        #expect(try await store.watch(number, owner: .local)?.active == false)
        let much = now.addingTimeInterval(1e6)
        #expect(try await store.claimDue(now: much, horizon: much, limit: 10, leaseUntil: much).isEmpty)
        #expect(try await store.pendingDeliveryCount() == 1)
        #expect(try await store.remove(number, owner: .local))
        #expect(try await store.pendingDeliveryCount() == 0)
        #expect(try await store.summary().events == 0, "a removed watch's history goes with it")
        #expect(try await store.watches(owner: .local, filter: .all, after: nil, limit: 10).isEmpty)
    }

    @Test("keys: names are unique, revoking one keeps it listed as revoked", arguments: StoreEngine.available)
    func keys(engine: StoreEngine) async throws {
        let engineStore = try await engine.makeStore()
        let store = engineStore.store
        let key = try await store.createKey(
            name: "shop", keyHash: Secrets.sha256("a"), calendarHash: Secrets.sha256("b"), now: now)
        await #expect(throws: WatchStoreError.duplicateKeyName("shop")) {
            try await store.createKey(name: "shop", keyHash: Secrets.sha256("c"), calendarHash: Secrets.sha256("d"), now: now)
        }
        #expect(try await store.revokeKey("shop", now: now))
        #expect(try await !store.revokeKey("shop", now: now))
        #expect(try await store.keys().map(\.revokedAt) == [now])
        #expect(key.owner == WatchOwner(id: "key:\(key.id)"))
    }

    /// The per-owner limit these tests set (the default is ten times larger).
    static let smallLimit = 10_000

    @Test("the limit of watches per owner is a typed refusal", arguments: StoreEngine.available)
    func limit(engine: StoreEngine) async throws {
        let engineStore = try await engine.makeStore(maxWatchesPerOwner: Self.smallLimit)
        let store = engineStore.store
        try engineStore.write(
            "INSERT INTO watches (owner, number, created_at, next_check_at) VALUES ('local', ?, 1, 1)",
            (0..<Self.smallLimit).map { [.text(String(format: "%012d", $0))] })
        await #expect(throws: WatchStoreError.limitReached(Self.smallLimit)) {
            try await store.add(ValidNumbers.numbers(1)[0], label: nil, owner: .local, webhook: nil, now: now)
        }
        _ = try await store.add(
            ValidNumbers.numbers(1)[0], label: nil, owner: WatchOwner(id: "key:1"), webhook: nil, now: now)
    }

    @Test(
        "the per-owner limit holds exactly when four servers add at once, 20 below it",
        .timeLimit(.minutes(10)), arguments: StoreEngine.available)
    func limitUnderConcurrentServers(engine: StoreEngine) async throws {
        let engineStore = try await engine.makeStore(maxWatchesPerOwner: Self.smallLimit)
        let room = 20
        try engineStore.write(
            "INSERT INTO watches (owner, number, created_at, next_check_at) VALUES ('local', ?, 1, 1)",
            ValidNumbers.numbers(Self.smallLimit - room, from: 20_000_000_000).map { [.text($0.digits)] })
        let stores: [any WatchStore] = [engineStore.store] + (try (0..<3).map { _ in try engineStore.another() })
        let numbers = ValidNumbers.numbers(stores.count * 10)
        let outcomes = await withTaskGroup(of: [String].self) { group in
            for (index, store) in stores.enumerated() {
                let mine = Array(numbers[(index * 10)..<(index * 10 + 10)])
                group.addTask {
                    var outcomes: [String] = []
                    for number in mine {
                        do {
                            _ = try await store.add(number, label: nil, owner: .local, webhook: nil, now: self.now)
                            outcomes.append("added")
                        } catch WatchStoreError.limitReached {
                            outcomes.append("limit")
                        } catch {
                            outcomes.append("\(error)")
                        }
                    }
                    return outcomes
                }
            }
            var all: [String] = []
            for await outcome in group { all += outcome }
            return all
        }
        #expect(outcomes.filter { $0 == "added" }.count == room)
        #expect(outcomes.filter { $0 == "limit" }.count == numbers.count - room)
        #expect(Set(outcomes).isSubset(of: ["added", "limit"]), "no other answer: \(Set(outcomes))")
        let counted = try await stores[1].watches(owner: .local, filter: .all, after: nil, limit: 20_000).count
        #expect(counted == Self.smallLimit)
    }

    @Test(
        "an add racing a delete of the same number answers the watch or the race, never a storage failure",
        .timeLimit(.minutes(10)), arguments: StoreEngine.available)
    func addRacingDelete(engine: StoreEngine) async throws {
        let engineStore = try await engine.makeStore()
        let adder = engineStore.store
        let remover = try engineStore.another()
        let number = ValidNumbers.numbers(1)[0]
        let removing = RaceFlag()
        // The adder adds again and again while the remover runs; the remover goes on until it has removed
        // the watch 100 times (or 20,000 tries), so the two overlap however the threads are scheduled.
        async let adds: [String] = {
            var outcomes: [String] = []
            while removing.value.load(ordering: .acquiring) || outcomes.isEmpty {
                do {
                    let added = try await adder.add(number, label: "race", owner: .local, webhook: nil, now: self.now)
                    outcomes.append(added.watch.number == number ? "added" : "wrong watch")
                } catch WatchStoreError.removedWhileAdding(let named) {
                    outcomes.append(named == number.formatted ? "race" : "race naming \(named)")
                } catch {
                    outcomes.append("\(error)")
                }
            }
            return outcomes
        }()
        async let removes: [String] = {
            var outcomes: [String] = []
            while outcomes.filter({ $0 == "removed" }).count < 100, outcomes.count < 20_000 {
                do {
                    outcomes.append(try await remover.remove(number, owner: .local) ? "removed" : "absent")
                } catch {
                    outcomes.append("\(error)")
                }
            }
            removing.value.store(false, ordering: .releasing)
            return outcomes
        }()
        let (added, removed) = await (adds, removes)
        #expect(Set(added).isSubset(of: ["added", "race"]), "\(Set(added))")
        #expect(Set(removed).isSubset(of: ["removed", "absent"]), "\(Set(removed))")
        #expect(added.contains("added") && removed.contains("removed"))
    }

    @Test("an answer older than one already recorded changes nothing", arguments: StoreEngine.available)
    func olderAnswer(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let number = ValidNumbers.numbers(1)[0]
        _ = try await store.add(number, label: nil, owner: .local, webhook: nil, now: now)
        let next: @Sendable (Watch, Shipment) -> Date? = { _, _ in self.now.addingTimeInterval(600) }
        try await store.record(Self.shipment(number, "荷物受付", .infoReceived), fetchedAt: now, nextCheck: next)
        let forward = try await store.record(
            Self.shipment(number, "輸送中", .inTransit), fetchedAt: now.addingTimeInterval(60), nextCheck: next)
        let back = try await store.record(
            Self.shipment(number, "荷物受付", .infoReceived), fetchedAt: now.addingTimeInterval(30), nextCheck: next)
        #expect(forward.count == 1 && back.isEmpty)
        #expect(try await store.changes(of: number, owner: .local)?.count == 1)
        #expect(try await store.watch(number, owner: .local)?.checkedAt == now.addingTimeInterval(60))
    }

    @Test(
        "claims: nothing unless one number is due now; then the most overdue, filled up to the horizon; leased where servers share the database",
        arguments: StoreEngine.available)
    func claims(engine: StoreEngine) async throws {
        let store = try await engine.makeStore().store
        let numbers = ValidNumbers.numbers(4)
        for number in numbers { _ = try await store.add(number, label: nil, owner: .local, webhook: nil, now: now) }
        // Checked half an hour ago, due in 10, 20, 30 and 300 seconds.
        for (number, seconds) in zip(numbers, [10.0, 20, 30, 300]) {
            _ = try await store.record(
                Self.shipment(number, "輸送中", .inTransit), fetchedAt: now.addingTimeInterval(-1_800)
            ) { _, _ in self.now.addingTimeInterval(seconds) }
        }
        let lease = now.addingTimeInterval(3_600)
        #expect(try await store.claimDue(now: now, horizon: now.addingTimeInterval(60), limit: 10, leaseUntil: lease).isEmpty)
        let at = now.addingTimeInterval(10)
        let claimed = try await store.claimDue(now: at, horizon: at.addingTimeInterval(60), limit: 10, leaseUntil: lease)
        #expect(claimed == Array(numbers.prefix(3)), "the due one, then those due within the horizon, in order")
        let later = now.addingTimeInterval(400)
        guard engine == .postgres else {
            // A server alone takes no lease: what it has not checked yet is still due (after a crash too).
            #expect(try await store.claimDue(now: later, horizon: later, limit: 10, leaseUntil: lease) == numbers)
            return
        }
        #expect(
            try await store.claimDue(now: later, horizon: lease.addingTimeInterval(10), limit: 10, leaseUntil: lease)
                == [numbers[3]], "claimed numbers wait for their lease, and are not taken to fill a POST")
        let afterLease = lease.addingTimeInterval(1)
        await #expect(
            Set(try store.claimDue(now: afterLease, horizon: afterLease, limit: 10, leaseUntil: afterLease + 60))
                == Set(numbers), "a lease that runs out (its server died) frees the numbers again")
    }

    @Test(
        "two servers claiming at once get disjoint numbers and deliveries, and together all of them",
        arguments: StoreEngine.available.filter { $0 == .postgres })
    func concurrentClaims(engine: StoreEngine) async throws {
        let engineStore = try await engine.makeStore()
        let first = engineStore.store
        let second = try engineStore.another()
        let numbers = ValidNumbers.numbers(60)
        for number in numbers {
            _ = try await first.add(number, label: nil, owner: .local, webhook: ("http://example.com/h", "k"), now: now)
        }
        let next: @Sendable (Watch, Shipment) -> Date? = { _, _ in self.now }
        for number in numbers {
            try await first.record(Self.shipment(number, "荷物受付", .infoReceived), fetchedAt: now, nextCheck: next)
            try await first.record(Self.shipment(number, "輸送中", .inTransit), fetchedAt: now, nextCheck: next)
        }
        let lease = now.addingTimeInterval(600)
        let stores: [any WatchStore] = [first, second, first, second]
        let results = await withTaskGroup(of: ([TrackingNumber], [String]).self) { group in
            for store in stores {
                group.addTask {
                    var claimed: [TrackingNumber] = []
                    var deliveries: [String] = []
                    for _ in 0..<20 {
                        claimed +=
                            (try? await store.claimDue(now: self.now, horizon: self.now, limit: 10, leaseUntil: lease))
                            ?? []
                        deliveries +=
                            ((try? await store.claimDeliveries(at: self.now, limit: 7, leaseUntil: lease)) ?? []).map(
                                \.change.id)
                    }
                    return (claimed, deliveries)
                }
            }
            var all: [([TrackingNumber], [String])] = []
            for await result in group { all.append(result) }
            return all
        }
        let claimed = results.flatMap(\.0)
        let delivered = results.flatMap(\.1)
        #expect(claimed.count == numbers.count && Set(claimed) == Set(numbers), "each number claimed exactly once")
        #expect(delivered.count == numbers.count && Set(delivered).count == numbers.count, "each delivery once")
    }
}

/// Whether the remover of a race test is still at work.
final class RaceFlag: Sendable {
    let value = Atomic<Bool>(true)
}
