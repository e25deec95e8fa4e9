import Foundation
import Kuroneko

/// Fresh answers and the poller: recording a shipment for every watch of its number (changes and their
/// deliveries), claiming due numbers, postponing one.
extension SQLWatchStore {
    @discardableResult
    public func record(
        _ shipment: Shipment, served: Data, fetchedAt: Date, nextCheck: @escaping @Sendable (Watch, Shipment) -> Date?
    ) async throws -> [StatusChange] {
        let number = shipment.trackingNumber
        let status = (try? JSONEncoder.kuroneko().encode(shipment.status)) ?? Data("{}".utf8)
        // A watch still to be found is found here, unless this carrier does not know the number either.
        let found: SQLValue = shipment.status.code == .notFound ? .null : .text(shipment.carrier.rawValue)
        let arriving = ArrivingSoon.window(of: shipment)
        // When it is late from (a new plan ends a lateness already said), and the reminder before a kept parcel
        // goes back.
        let due: SQLValue = Overdue.dueAt(shipment).map { .real($0.timeIntervalSince1970) } ?? .null
        let reminder = MissedDelivery(shipment)?.reminder
        // The answer in short (as read, not when): a check that finds the same answer changes nothing a person sees.
        let digest = WatchChanges.digest((try? JSONEncoder.kuroneko().encode(shipment)) ?? served)
        // The columns a list is narrowed by (the search text is the label's and the number's: unchanged here).
        let listed = ListColumns(shipment: shipment, label: nil, digits: number.digits)
        // One call on the writer's thread: the watches are read in the transaction that records the answer.
        return try await database.write { connection in
            // The watches followed at this carrier, or still to be found (a number a carrier does not know says
            // nothing of a watch followed at another).
            let watches = try connection.run(
                Self.watchColumns + " WHERE w.number = ? AND w.active = 1 AND (w.carrier IS NULL OR w.carrier = ?)",
                [.text(number.digits), .text(shipment.carrier.rawValue)]
            ).compactMap(Self.watch(from:))
            // Only watched numbers are kept: a lookup of anything else leaves no trace here.
            guard !watches.isEmpty else { return [] }
            let schedule = watches.map { ($0.id, nextCheck($0, shipment)) }
            let byID = Dictionary(watches.map { ($0.id, $0) }) { first, _ in first }
            try connection.run(
                """
                INSERT INTO shipments (number, json, status_code, status_label, terminal, fetched_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (number) DO UPDATE SET json = excluded.json, status_code = excluded.status_code,
                    status_label = excluded.status_label, terminal = excluded.terminal, fetched_at = excluded.fetched_at
                WHERE excluded.fetched_at >= shipments.fetched_at
                """,
                [
                    .text(number.digits), .blob(served), .text(shipment.status.code.rawValue),
                    .text(shipment.status.label), .integer(shipment.status.isTerminal ? 1 : 0),
                    .real(fetchedAt.timeIntervalSince1970),
                ])
            for event in shipment.events {
                try connection.run(
                    """
                    INSERT INTO events (number, label, at, place, first_seen_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT DO NOTHING
                    """,
                    [
                        .text(number.digits), .text(event.label), .text(event.at?.iso8601 ?? event.dateText ?? ""),
                        .text(event.place ?? ""), .real(fetchedAt.timeIntervalSince1970),
                    ])
            }
            try self.database.announceFetched(
                LatestShipment(fetchedAt: fetchedAt, json: served), digits: number.digits, on: connection)
            var changes: [StatusChange] = []
            // Each owner's customer-notice milestones, read once per answer.
            var noticeChoices: [String: Set<CustomerMilestone>?] = [:]
            let notFound = shipment.status.code == .notFound
            let graceStart = fetchedAt.timeIntervalSince1970 - self.unregisteredGrace
            func updateValues(watchID: Int64, next: Date?, arriving: (key: String, start: Date)?) -> [SQLValue] {
                var values: [SQLValue] = [
                    .text(shipment.status.label), .blob(status), .real(fetchedAt.timeIntervalSince1970),
                    .real((next ?? fetchedAt).timeIntervalSince1970), .integer(next == nil ? 0 : 1), found,
                    arriving.map { .real($0.start.timeIntervalSince1970) } ?? .null,
                    arriving.map { .text($0.key) } ?? .null,
                ]
                values.append(listed.values[0])
                // Not known to the carrier yet, and added within the grace: waiting, not a problem.
                values += [.integer(notFound ? 1 : 0), .real(graceStart), listed.values[1]]
                // A new latest event ends a stall.
                values.append(listed.values[3])
                values += listed.values[2..<ListColumns.recorded]
                values += [
                    due, due, reminder.map { .real($0.at.timeIntervalSince1970) } ?? .null,
                    reminder.map { .text($0.key) } ?? .null, .text(digest),
                ]
                values.append(.integer(watchID))
                return values
            }
            for (watchID, next) in schedule {
                let current = try connection.run(
                    "SELECT status_label, status_json, checked_at FROM watches WHERE id = ? AND active = 1"
                        + Database.lockingRead,
                    [.integer(watchID)])
                // An answer older than one already recorded (two checks of a number at once, on one server or
                // two) changes nothing: the watch never steps back.
                guard let row = current.first, try (row.double("checked_at") ?? 0) <= fetchedAt.timeIntervalSince1970
                else {
                    continue
                }
                if let watch = byID[watchID] {
                    try self.queueCustomerNotice(
                        shipment, served: served, watch: watch, firstAnswer: try row.text("status_label") == nil,
                        at: fetchedAt, on: connection, choices: &noticeChoices)
                }
                if let previousLabel = try row.text("status_label"), previousLabel != shipment.status.label {
                    let change = StatusChange(
                        id: UUID().uuidString.lowercased(), watchID: watchID, number: number, createdAt: fetchedAt,
                        previous: try row.data("status_json") ?? Data("{}".utf8), shipment: served)
                    try connection.run(
                        "INSERT INTO changes (id, watch_id, created_at, previous_json, shipment_json) VALUES (?, ?, ?, ?, ?)",
                        [
                            .text(change.id), .integer(watchID), .real(fetchedAt.timeIntervalSince1970),
                            .blob(change.previous), .blob(served),
                        ])
                    try connection.run(
                        """
                        INSERT INTO outbox (change_id, subscription_id, created_at, next_attempt_at)
                        SELECT ?, id, ?, ? FROM subscriptions WHERE watch_id = ? AND ended_at IS NULL
                        """,
                        [
                            .text(change.id), .real(fetchedAt.timeIntervalSince1970),
                            .real(fetchedAt.timeIntervalSince1970), .integer(watchID),
                        ])
                    changes.append(change)
                    if let watch = byID[watchID] {
                        try self.queueAnnouncements(
                            AnnouncementKind.of(shipment), watchID: watchID, owner: watch.owner.id,
                            number: number, label: watch.label, shipment: served, at: fetchedAt, on: connection)
                    }
                }
                try connection.run(
                    """
                    UPDATE watches SET status_label = ?, status_json = ?, checked_at = ?, next_check_at = ?, active = ?,
                        carrier = COALESCE(carrier, ?), arriving_at = ?, arriving_window = ?, claimed_until = NULL,
                        status_code = ?,
                        family = CASE WHEN ? = 1 AND created_at > ? THEN 'waiting' ELSE ? END,
                        stalled_at = CASE WHEN last_event_at IS DISTINCT FROM ? THEN NULL ELSE stalled_at END,
                        page_refused_at = NULL, forecast_date = ?, last_event_at = ?, dated = ?,
                        due_at = ?, overdue_at = CASE WHEN due_at IS DISTINCT FROM ? THEN NULL ELSE overdue_at END,
                        reminder_at = ?, reminder_key = ?, answer_digest = ?
                    WHERE id = ?
                    """,
                    updateValues(watchID: watchID, next: next, arriving: arriving))
            }
            return changes
        }
    }

    public func claimDueChecks(
        now: Date, horizon: Date, fillFraction: Double, limit: Int, leaseUntil: Date
    ) async throws -> [DueCheck] {
        try await database.write { connection in
            // Along the (active, next_check_at) index, soonest first: every number due now, then numbers not
            // yet due whose next check is within `fillFraction` of their own interval (the time from their
            // last check to their next) and that no server holds; a number never answered (its first check
            // failed and was postponed) waits until it is due. A number several owners watch comes once
            // (eight rows a number are read, so shared numbers and other carriers still leave room).
            let nowSeconds = now.timeIntervalSince1970
            // Nothing due, nothing to claim: one step along the index, so a poll tick with nothing due scans
            // and locks no rows (the fill below may look hours ahead).
            let anyDue = try connection.run(
                "SELECT 1 FROM watches WHERE active = 1 AND next_check_at <= ? LIMIT 1", [.real(nowSeconds)])
            guard !anyDue.isEmpty else { return [] }
            let rows = try connection.run(
                """
                SELECT w.number, w.carrier, w.next_check_at FROM watches w
                WHERE w.active = 1 AND w.next_check_at <= ? AND (w.next_check_at <= ? OR (
                    (w.claimed_until IS NULL OR w.claimed_until <= ?)
                    AND w.checked_at IS NOT NULL AND w.next_check_at - ? <= ? * (w.next_check_at - w.checked_at)))
                ORDER BY w.next_check_at LIMIT ?
                """ + Database.skippingLocked(of: "w"),
                [
                    .real(horizon.timeIntervalSince1970), .real(nowSeconds), .real(nowSeconds), .real(nowSeconds),
                    .real(fillFraction), .integer(Int64(limit * 8)),
                ])
            guard let first = try rows.first?.double("next_check_at"), first <= nowSeconds else { return [] }
            var candidates: [(digits: String, carrier: String?, next: Double)] = []
            for row in rows {
                candidates.append(
                    (try row.requiredText("number"), try row.text("carrier"), try row.double("next_check_at") ?? 0))
            }
            // A POST goes to one carrier: numbers not yet due fill only the carriers some due number is
            // going to (a number still to be found is asked first where its digits say).
            func asked(_ candidate: (digits: String, carrier: String?, next: Double)) -> String {
                candidate.carrier ?? (try? TrackingNumber(parsing: candidate.digits))?.candidates.first?.rawValue ?? ""
            }
            let dueCarriers = Set(candidates.filter { $0.next <= nowSeconds }.map(asked))
            var seen: Set<String> = []
            let chosen = candidates.filter { candidate in
                (candidate.next <= nowSeconds || dueCarriers.contains(asked(candidate)))
                    && seen.insert(candidate.digits).inserted
            }.prefix(limit)
            var claimed: [DueCheck] = []
            for candidate in chosen {
                guard let number = try? TrackingNumber(parsing: candidate.digits) else { continue }
                let due = DueCheck(number: number, carrier: candidate.carrier.flatMap { try? Carrier(named: $0) })
                guard Database.leasesClaims else {
                    claimed.append(due)
                    continue
                }
                // Another server that claimed it first has moved its watches on and marked them held: on
                // PostgreSQL this statement waits for that server's transaction and then matches nothing.
                try connection.run(
                    """
                    UPDATE watches SET next_check_at = ?, claimed_until = ?
                    WHERE number = ? AND active = 1 AND next_check_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
                    """,
                    [
                        .real(leaseUntil.timeIntervalSince1970), .real(leaseUntil.timeIntervalSince1970),
                        .text(candidate.digits), .real(candidate.next), .real(nowSeconds),
                    ])
                if connection.changes > 0 { claimed.append(due) }
            }
            return claimed
        }
    }

    public func postpone(_ number: TrackingNumber, until: Date) async throws {
        _ = try await database.write { connection in
            try connection.run(
                "UPDATE watches SET next_check_at = ?, claimed_until = NULL WHERE number = ? AND active = 1",
                [.real(until.timeIntervalSince1970), .text(number.digits)])
        }
    }
}
