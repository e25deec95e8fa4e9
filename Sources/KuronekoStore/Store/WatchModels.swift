import Foundation
import Kuroneko

/// Whose watch a watch is: the API key that made it, or `local` (the command line, or a server without
/// keys). Two owners watching one number share its fetches and nothing else.
public struct WatchOwner: Hashable, Sendable, CustomStringConvertible {
    public let id: String

    public init(id: String) {
        self.id = id
    }

    public static let local = WatchOwner(id: "local")

    public static func key(_ keyID: Int64) -> WatchOwner { WatchOwner(id: "key:\(keyID)") }

    public var description: String { id }
}

/// The latest shipment known for a number, and when Yamato was asked.
public struct LatestShipment: Sendable, Hashable {
    public let fetchedAt: Date
    /// As the API serves it (``ServedShipment``).
    public let json: Data

    public init(fetchedAt: Date, json: Data) {
        self.fetchedAt = fetchedAt
        self.json = json
    }

    /// The shipment, decoded from ``json`` on each use: listing watches copies the JSON as it is and never
    /// pays for decoding (a JSONDecoder pass per row was most of a 200-watch list's time). `nil` if the
    /// stored JSON does not decode.
    public var shipment: Shipment? {
        try? JSONDecoder().decode(Shipment.self, from: json)
    }
}

/// A tracking number someone follows.
public struct Watch: Sendable, Hashable {
    public let id: Int64
    public let owner: WatchOwner
    public let number: TrackingNumber
    /// Where it is followed: named when it was added, or found at its first answer; `nil` until then.
    public var carrier: Carrier? = nil
    public let label: String?
    public let createdAt: Date
    /// Still followed: not finished (delivered, returned, invalid) and not expired.
    public let active: Bool
    /// When a fresh answer for it last came in.
    public let checkedAt: Date?
    /// When the poller checks it next.
    public let nextCheckAt: Date
    public let latest: LatestShipment?
    /// Where its changes are posted, when it has a webhook.
    public let webhookURL: String?
    /// When and why the receiver ended the webhook (it answered 410 Gone); nothing is posted after that.
    public var webhookEnded: WebhookEnd? = nil
    /// What the list counts it as (``WatchFamily``), as the store keeps it.
    public var family: WatchFamily? = nil
    /// Since when it has been stalled (no new event for longer than its status allows), if it is.
    public var stalledAt: Date? = nil
    /// Since when it has been late (still on its way past the end of its planned delivery), if it is.
    public var overdueAt: Date? = nil
    /// Since when its carrier's page has been refused (not understood), until an answer is read again.
    public var pageRefusedAt: Date? = nil
    /// The mail it was found in (`{"from", "subject", "date", "mailbox"}`, JSON), when a mailbox brought it.
    public var source: Data? = nil
    /// What the shop or household knows about the parcel besides its label, as stored (``ParcelRecord/json``):
    /// served as it is, decoded only where a part is read (``record``).
    public var recordJSON: Data? = nil

    /// What the shop or household knows about the parcel besides its label (``ParcelRecord``).
    public var record: ParcelRecord? {
        get { ParcelRecord.decode(recordJSON) }
        set { recordJSON = newValue?.json }
    }
}

/// A number the poller is to check, and where.
public struct DueCheck: Sendable, Hashable {
    public let number: TrackingNumber
    public let carrier: Carrier?

    public init(number: TrackingNumber, carrier: Carrier?) {
        self.number = number
        self.carrier = carrier
    }
}

/// A webhook subscription its receiver ended.
public struct WebhookEnd: Sendable, Hashable {
    public let at: Date
    public let reason: String
}

/// One status change of a watch: what it was and what it became.
public struct StatusChange: Sendable, Hashable {
    /// Stable, unique: a webhook receiver drops duplicates by it.
    public let id: String
    public let watchID: Int64
    public let number: TrackingNumber
    public let createdAt: Date
    /// The status before, as JSON (the shipment's `status` object).
    public let previous: Data
    /// The shipment after, as the API serves it.
    public let shipment: Data
}

/// A webhook delivery waiting in the outbox, with what it needs to be sent.
public struct PendingDelivery: Sendable, Hashable {
    public let outboxID: Int64
    public let change: StatusChange
    public let url: String
    public let secret: String
    public let attempts: Int
    public let createdAt: Date
}

/// One attempt to deliver a change, as recorded.
public struct DeliveryRecord: Sendable, Hashable {
    public let changeID: String
    /// `pending`, `delivered` or `failed` (given up after 24 h).
    public let state: String
    public let at: Date
    /// The receiver's HTTP status, when it answered.
    public let status: Int?
    public let error: String?
    public let durationMilliseconds: Double
}

/// An API key as stored: its name and hashes, never the key.
public struct APIKeyRecord: Sendable, Hashable {
    public let id: Int64
    public let name: String
    public let keyHash: Data
    public let calendarHash: Data
    public let createdAt: Date
    public let revokedAt: Date?
    /// The list a member made the key for, and its role there; `nil` for a key made on the command line, whose
    /// list is its own.
    public var listID: String? = nil
    public var role: ListRole? = nil

    public var owner: WatchOwner { listID.map(WatchOwner.init(id:)) ?? .key(id) }
}

/// Which watches a listing shows.
public enum WatchFilter: String, Sendable, CaseIterable {
    case all, active, finished
}

/// What adding a watch did.
public struct AddedWatch: Sendable {
    public let watch: Watch
    /// False when the owner already watched the number (adding is idempotent).
    public let created: Bool
    /// The webhook's secret, only when this add created the subscription: shown once.
    public let webhookSecret: String?
}

/// The watch list's persistence, with every SQL statement behind it in one implementation
/// (``SQLiteWatchStore``), so another engine can be added without touching the API, the poller or the
/// command line.
/// What a watch list holds, for `kuroneko db status`.
public struct StoreSummary: Sendable, Equatable {
    public var engine: String
    public var schemaVersion: Int
    public var activeWatches: Int
    public var finishedWatches: Int
    public var shipments: Int
    /// Distinct history rows kept for the watched numbers.
    public var events: Int
    public var changes: Int
    public var pendingDeliveries: Int
    public var activeKeys: Int
}

/// The database itself: what it holds, whether it is shared or remote, a backup, its settings.
public protocol StoreDatabase: Sendable {
    /// The engine, the schema version and how many of each thing the database holds.
    func summary() async throws -> StoreSummary
    /// What servers on this database share through it (budget, shipments); `nil` when the database is one
    /// server's own.
    var shared: (any SharedDatabase)? { get }
    /// Copies the database into a new file at `path` while it is in use, and checks the copy; the check's
    /// lines (`["ok"]` for a sound copy).
    /// - Throws: ``WatchStoreError/backupUnsupported`` where the engine has its own tools (PostgreSQL).
    func backup(to path: String) async throws -> [String]
    /// Whether the database is reached over the network (calls may wait on round trips), not a local file.
    var isRemote: Bool { get }
    /// Throws when the database cannot be reached now (for readiness checks).
    func checkReachable() async throws
    /// A setting shared by every server on the database, set once: the value stored, or `value` when none was.
    func setting(_ name: String, otherwise value: String) async throws -> String
}

/// Watches: adding, reading (narrowed, ordered, summarised), editing and removing them, and what changed.
public protocol WatchRecords: Sendable {
    /// Adds a watch (idempotent per owner and number), with a webhook when `webhook` is given.
    /// - Throws: ``WatchStoreError/limitReached`` past ``WatchLimits/watchesPerOwner``.
    /// Adds a watch (an owner watches a number once, at one carrier).
    /// - Parameter carrier: where to follow it; `nil` finds it at the first answer.
    /// - Throws: ``WatchStoreError/watchedAtAnotherCarrier(_:_:)`` when the owner follows the number at
    ///   another carrier already.
    /// - Parameter record: what is known of the parcel (``ParcelRecordChange``); for a number the owner watches
    ///   already, applied to the record it has.
    /// - Throws: ``ParcelRecordError`` for a record that is refused (nothing is written).
    func add(
        _ number: TrackingNumber, carrier: Carrier?, label: String?, record: ParcelRecordChange?, owner: WatchOwner,
        webhook: (url: String, secret: String)?, now: Date
    ) async throws -> AddedWatch
    /// Adds many watches in one transaction (a sheet's rows, a batch at a time), each as ``add(_:carrier:label:record:owner:webhook:now:)``
    /// would: whether each was created, or why it was refused; `nil` for the rows after the list's limit.
    func addMany(_ rows: [NewWatchRow], owner: WatchOwner, now: Date) async throws -> [Result<Bool, any Error>?]
    func watch(_ number: TrackingNumber, owner: WatchOwner) async throws -> Watch?
    /// The most watches one owner may have.
    var maxWatchesPerOwner: Int { get }
    /// Watches in creation order after `cursor` (a watch id), at most `limit`.
    func watches(owner: WatchOwner, filter: WatchFilter, after cursor: Int64?, limit: Int) async throws -> [Watch]
    /// Watches the query keeps, in creation order after `cursor`, at most `limit`: one indexed query, `now`
    /// saying which day today is.
    func watches(owner: WatchOwner, matching query: WatchQuery, after cursor: Int64?, limit: Int, now: Date) async throws
        -> [Watch]
    /// Watches the query keeps in `order`, skipping the first `offset`, at most `limit`; and how many the query
    /// keeps in all.
    func watches(
        owner: WatchOwner, matching query: WatchQuery, ordered order: WatchOrder, offset: Int, limit: Int, now: Date
    ) async throws -> (watches: [Watch], total: Int)
    /// The ids of the watches the query keeps, in `order`, at most `limit` (a download in a person's order).
    func watchIDs(owner: WatchOwner, matching query: WatchQuery, ordered order: WatchOrder, limit: Int, now: Date)
        async throws -> [Int64]
    /// The owner's watches among `ids`, in their order (one that went in between is left out).
    func watches(owner: WatchOwner, ids: [Int64]) async throws -> [Watch]
    /// The names of the sheet columns kept in the records of the watches the query keeps (``ParcelRecord/fields``),
    /// in the order first met, at most `limit`: the columns of a download. Reads only the records.
    func recordFieldNames(owner: WatchOwner, matching query: WatchQuery, now: Date, limit: Int) async throws -> [String]
    /// Counts of the watches the query keeps (its codes, families and forecast aside: those are counted).
    func watchSummary(owner: WatchOwner, matching query: WatchQuery, now: Date) async throws -> WatchSummary
    /// What changed in the owner's list after `cursor` (at most `limit` changes), or only the cursor of its
    /// latest change when `cursor` is `nil`. - Throws: ``WatchStoreError/changesForgotten(_:)`` or
    /// ``WatchStoreError/changesAhead(_:)`` for a cursor that cannot be followed.
    func changes(owner: WatchOwner, since cursor: Int64?, limit: Int, now: Date) async throws -> WatchChanges
    /// Forgets removals older than `before`, at most `limit`; a cursor before them can no longer be followed.
    /// - Returns: how many were forgotten.
    func forgetRemovals(before: Date, limit: Int) async throws -> Int
    /// Removes a watch with its changes, subscription and pending deliveries.
    func remove(_ number: TrackingNumber, owner: WatchOwner) async throws -> Bool
    /// Removes watches, in one transaction. - Returns: for each number, whether the owner watched it.
    func remove(_ numbers: [TrackingNumber], owner: WatchOwner) async throws -> [Bool]
    /// Removes every finished watch of the owner (last checked before `checkedBefore`, when given), in one
    /// transaction. - Returns: their numbers' digits (the audit log names them).
    func removeFinished(owner: WatchOwner, checkedBefore: Date?) async throws -> [String]
    /// Removes finished watches of every owner last checked before `checkedBefore`, at most `limit` at a time
    /// (`--forget-finished-after`). - Returns: how many went.
    func forgetFinished(checkedBefore: Date, limit: Int) async throws -> Int
    /// Changes a watch's label, record and webhook: `nil` leaves one as it is, `.some(nil)` clears it; the
    /// record changes as ``ParcelRecordChange`` says; a new webhook replaces the old one (whose pending
    /// deliveries go with it). - Returns: the watch, or `nil` when the owner does not watch the number.
    /// - Throws: ``ParcelRecordError`` for a record that is refused (nothing is written).
    func update(
        _ number: TrackingNumber, owner: WatchOwner, label: String??, record: ParcelRecordChange?,
        webhook: (url: String, secret: String)??, now: Date
    ) async throws -> Watch?
    func changes(of number: TrackingNumber, owner: WatchOwner) async throws -> [StatusChange]?
    func deliveries(of number: TrackingNumber, owner: WatchOwner) async throws -> [DeliveryRecord]?
    /// Keeps the mail a watch came from (JSON) on the owner's watch of `number`.
    func setWatchSource(_ number: TrackingNumber, owner: WatchOwner, source: Data) async throws
}

/// Checking watches: recording answers, the poller's claims, and the announcements the answers make.
public protocol CheckSchedule: Sendable {
    /// Records a fresh answer for a number: the latest shipment, new events, and for every watch of it the
    /// check time, the next check, and a change (with its webhook deliveries) when the status differs
    /// from the watch's last one. The first status a watch sees is its baseline, not a change.
    /// - Parameter nextCheck: when each watch should be checked next; `nil` stops checking it (inactive).
    /// - Parameter served: the shipment as the API serves it (``ServedShipment/encode(_:fetchedAt:)``), when the
    ///   caller has it already (the cache made it).
    @discardableResult
    func record(
        _ shipment: Shipment, served: Data, fetchedAt: Date, nextCheck: @escaping @Sendable (Watch, Shipment) -> Date?
    ) async throws -> [StatusChange]
    /// Claims numbers to check, with the carrier each is followed at (`nil`: still to be found): nothing
    /// unless one is due by `now`; then up to `limit`, every due number first (the most overdue first, none
    /// held back), filled up, soonest first, with numbers of the same carriers due by `horizon` whose next
    /// check is at most `fillFraction` of their own interval (last check to next check) away, so a POST
    /// leaves full and numbers checked together stay together. With `fillFraction` 0.5 no number is checked
    /// before half its interval. Where servers share the database, the watches of a claimed
    /// number are held until `leaseUntil` (not due, and never taken to fill a POST): its answer reschedules
    /// them, and if the server that claimed it dies, another takes it over once the lease has run out;
    /// servers never claim the same number at once. A server alone (SQLite) takes no lease.
    func claimDueChecks(now: Date, horizon: Date, fillFraction: Double, limit: Int, leaseUntil: Date) async throws
        -> [DueCheck]
    /// Moves the next check of a number's watches (after a failed check).
    func postpone(_ number: TrackingNumber, until: Date) async throws
    /// The latest shipment recorded for a watched number, whoever fetched it.
    func latestShipment(of number: TrackingNumber) async throws -> LatestShipment?
    /// Watches waiting for their carrier to know their number (``WatchFamily/waiting``) past the grace become a
    /// problem, each announced once as an exception to the channels that hear it. - Returns: how many.
    func promoteWaiting(now: Date, limit: Int) async throws -> Int
    /// Active watches whose latest event is older than their status allows (``StallLimits``) are marked
    /// stalled, each announced once (`stalled`); a new event clears the mark. - Returns: how many were marked.
    func markStalled(now: Date, limit: Int) async throws -> Int
    /// Active watches still on their way past the end of their planned delivery (``Overdue``) are marked late,
    /// each announced once (`overdue`) per plan; a new plan clears the mark. - Returns: how many were marked.
    func markOverdue(now: Date, limit: Int) async throws -> Int
    /// Announces `kept_reminder` for parcels kept after a missed delivery whose last day is tomorrow
    /// (``MissedDelivery/reminder``), once per keeping. - Returns: how many were announced.
    func announceKeptReminders(now: Date, limit: Int) async throws -> Int
    /// Marks the active watches of `numbers` as having a page their carrier answered that was not understood
    /// (kept from the first refusal until an answer is recorded). - Returns: how many were newly marked.
    @discardableResult
    func markPageRefused(_ numbers: [TrackingNumber], at: Date) async throws -> Int
    /// Queues an announcement that is no status change (arriving soon) for the channels of a watch's owner
    /// that hear it. - Returns: how many were queued.
    @discardableResult
    func announce(_ kind: AnnouncementKind, watch: Watch, shipment: Data, at now: Date) async throws -> Int
    /// Announces `arriving_soon` for the watches whose forecast window starts within `lead`, once per window.
    @discardableResult
    func announceArrivals(now: Date, lead: TimeInterval, limit: Int) async throws -> Int
}

/// Webhook deliveries waiting in the outbox: claimed, attempted, ended.
public protocol WebhookOutbox: Sendable {
    /// Claims the oldest pending delivery of each subscription whose time has come (deliveries of one
    /// watch go out in order: the next waits until the one before is delivered or given up). Where servers
    /// share the database, a claimed delivery is not due again until `leaseUntil` (its attempt, once
    /// recorded, decides what comes next), so each is sent once; one that dies leaves it to the others.
    /// - Parameter busy: watches whose delivery is being attempted now, by this server: none of theirs is
    ///   claimed again meanwhile.
    func claimDeliveries(at now: Date, limit: Int, leaseUntil: Date, excludingWatches busy: Set<Int64>) async throws
        -> [PendingDelivery]
    /// Ends the subscription a delivery belongs to (its receiver answered 410 Gone): its pending deliveries
    /// are given up, the watch shows when and why, and later changes post nothing.
    func endSubscription(ofDelivery outboxID: Int64, at: Date, reason: String) async throws
    /// Records an attempt; `delivered`, or retried at `retryAt`, or given up when `retryAt` is `nil`.
    func recordAttempt(
        _ outboxID: Int64, at: Date, status: Int?, error: String?, durationMilliseconds: Double, delivered: Bool,
        retryAt: Date?) async throws
    /// Deliveries not yet delivered or given up.
    func pendingDeliveryCount() async throws -> Int
}

/// Notification channels: added, listed, removed, their deliveries and their state.
public protocol ChannelStore: Sendable {
    // Notification channels (an owner's), their outbox and its attempts.
    /// - Throws: ``WatchStoreError/channelLimitReached(_:)`` past ``ChannelLimits/channelsPerOwner``.
    func addChannel(_ channel: NewChannel, owner: WatchOwner, now: Date) async throws -> ChannelRecord
    /// A channel of one member (`member`), named by its device; `nil` member: the list's.
    func addChannel(_ channel: NewChannel, owner: WatchOwner, member: Int64?, device: String?, now: Date)
        async throws -> ChannelRecord
    func channels(owner: WatchOwner) async throws -> [ChannelRecord]
    /// The channels whose morning summary is due: at or past their minute on `day` (by at most
    /// ``MorningSummaryTime/lateness``), none made for them that day.
    func morningSummariesDue(day: String, minute: Int) async throws -> [ChannelRecord]
    /// Takes the channel's summary of `day` (once, whichever server asks first) and queues `summary` when there is
    /// one; `false` when it was taken already.
    func queueMorningSummary(channel: Int64, day: String, summary: Data?, at: Date) async throws -> Bool
    /// Each of the owner's channels that hears the morning summary, and its minute of the day.
    func morningSummaryMinutes(owner: WatchOwner) async throws -> [Int64: Int]
    func removeChannel(_ id: Int64, owner: WatchOwner) async throws -> Bool
    /// The oldest pending announcement of each channel due now (none of `busy`), leased until `leaseUntil`.
    func claimChannelDeliveries(at now: Date, limit: Int, leaseUntil: Date, excludingChannels busy: Set<Int64>)
        async throws -> [PendingChannelDelivery]
    func recordChannelAttempt(
        _ outboxID: Int64, at: Date, status: Int?, error: String?, durationMilliseconds: Double, delivered: Bool,
        retryAt: Date?
    ) async throws
    /// Ends a channel its service refused for good: nothing more is sent to it; its pending announcements
    /// are given up.
    func endChannel(_ id: Int64, at: Date, reason: String) async throws
    /// Keeps what the deliverer knows of a channel (``ChannelRecord/state``).
    func setChannelState(_ id: Int64, _ state: Data) async throws
    /// A channel's pending announcements, oldest first, at most `limit` (what one digest folds).
    func channelBacklog(_ id: Int64, limit: Int) async throws -> [PendingChannelDelivery]
    /// A channel's attempts, newest last; `nil` when the owner has no such channel.
    func channelDeliveries(of id: Int64, owner: WatchOwner) async throws -> [DeliveryRecord]?
}

/// A shop's notices to its customers: settings, the queue, stops.
public protocol NoticeStore: Sendable {
    /// The owner's customer-notice settings as stored (JSON), or `nil` when never set.
    func noticeSettingsJSON(owner: WatchOwner) async throws -> Data?
    func saveNoticeSettings(_ json: Data, owner: WatchOwner, at: Date) async throws
    /// The oldest pending customer notice of each parcel due now (none of `busy`), leased until `leaseUntil`.
    func claimCustomerNotices(at now: Date, limit: Int, leaseUntil: Date, excludingWatches busy: Set<Int64>)
        async throws -> [CustomerNoticeRecord]
    func recordCustomerNotice(
        _ id: Int64, state: String, at: Date, status: Int?, error: String?, retryAt: Date?, attempted: Bool
    ) async throws
    /// Forgets the notices that ended before `before`; how many.
    @discardableResult
    func forgetCustomerNotices(endedBefore before: Date) async throws -> Int
    func stopCustomerNotices(owner: String, addressHash: String, reason: String, at: Date) async throws
    func customerNoticeStop(owner: String, addressHash: String) async throws -> String?
    func customerNotices(watchID: Int64, owner: WatchOwner) async throws -> [CustomerNoticeRecord]
    func customerNoticeDays(owner: WatchOwner, since: Date) async throws -> [CustomerNoticeDay]
}

/// The carriers' pages: refused ones kept, whether a carrier's page is judged changed.
public protocol PageStore: Sendable {
    /// Keeps a refused page (already redacted) within `limits`: `nil` when the carrier's share of the hour is
    /// used up; the oldest pages are dropped past the total count or size.
    func keepRefusedPage(_ page: NewRefusedPage, limits: RefusedPageLimits) async throws -> Int64?
    /// The kept pages, newest first, without their bodies.
    func refusedPages(limit: Int) async throws -> [RefusedPageRecord]
    /// One kept page with its body; `nil` when there is none of that id.
    func refusedPage(_ id: Int64) async throws -> RefusedPageRecord?
    /// Records whether a carrier's pages are judged changed; when that is news to the database (every server
    /// shares it), queues `notice` as `page_changed` or `page_restored` for the channels that hear it, in the
    /// same transaction. - Returns: whether the state changed (and the news was queued).
    func setCarrierPageState(_ carrier: Carrier, changed: Bool, reason: String?, at: Date, notice: Data) async throws
        -> Bool
}

/// The mailbox read for shipping mails: progress, messages known, problems.
public protocol MailboxStore: Sendable {
    /// Where a mailbox was read up to: its UIDVALIDITY and the last UID read; `nil` before its first read.
    func mailboxProgress(_ name: String) async throws -> (uidValidity: UInt64, lastUID: UInt64)?
    /// Keeps where a mailbox was read up to (after each message, so a restart reads none twice).
    func setMailboxProgress(_ name: String, uidValidity: UInt64, lastUID: UInt64, at: Date) async throws
    /// Whether a mail of `mailbox` with this Message-ID was turned into watches before.
    func mailboxMessageKnown(_ mailbox: String, messageID: String) async throws -> Bool
    /// Remembers that a mail of `mailbox` was turned into watches.
    func rememberMailboxMessage(_ mailbox: String, messageID: String, at: Date) async throws
    /// Forgets all but the newest `keeping` Message-IDs remembered of `mailbox` (the memory is bounded).
    func forgetOldMailboxMessages(_ mailbox: String, keeping: Int) async throws
    /// Records that a mailbox cannot be read (`problem`) or is read again (`nil`); when that is news to the
    /// database, queues `notice` as `mailbox_failing` or `mailbox_restored` for the operator's channels, in the
    /// same transaction. - Returns: whether the state changed (and the news was queued).
    func setMailboxProblem(_ name: String, problem: String?, at: Date, notice: Data) async throws -> Bool
}

/// API keys and whether the API is open without them.
public protocol KeyStore: Sendable {
    func createKey(name: String, keyHash: Data, calendarHash: Data, now: Date) async throws -> APIKeyRecord
    /// Revokes the key of this id (never another's of the same name).
    func revokeKey(id: Int64, now: Date) async throws -> Bool
    /// A key a member makes for their list, with a role no higher than theirs (checked by the caller).
    func createKey(
        name: String, keyHash: Data, calendarHash: Data, now: Date, list: String, role: ListRole, madeBy: Int64?
    ) async throws -> APIKeyRecord
    func keys() async throws -> [APIKeyRecord]
    /// When the operator last opened the API to everyone without a key (`kuroneko keys open`), if ever.
    func keysOpenedAt() async throws -> Date?
    /// Opens the API to everyone while no key is active (persisted; a key revoked later closes it again).
    func openWithoutKeys(at: Date) async throws
    /// Revokes by name or id; false when no such key is active.
    func revokeKey(_ nameOrID: String, now: Date) async throws -> Bool
}

/// The watch list, as the server, its services and the CLI use it: every store protocol by concern, which both
/// engines (SQLite and PostgreSQL) conform to. Every call is `async throws`.
public protocol WatchStore: StoreDatabase, WatchRecords, CheckSchedule, WebhookOutbox, ChannelStore, NoticeStore, PageStore, MailboxStore, KeyStore {}

/// The documented limits of the watch list.
public enum WatchLimits {
    /// Watches one owner may have unless the operator sets another number (`--max-watches-per-owner`);
    /// adding more is answered 409.
    public static let defaultWatchesPerOwner = 100_000
    /// The most `--max-watches-per-owner` accepts.
    public static let maxWatchesPerOwnerSetting = 10_000_000
    /// The longest label, in characters.
    public static let labelLength = 200
    /// The longest label, in UTF-8 bytes.
    public static let labelBytes = 800
    /// How long a number the carrier does not know yet (伝票番号未登録, 該当なし) is waiting rather than a
    /// problem, from when it was added: three days, unless the operator sets another (`--unregistered-grace`).
    public static let unregisteredGrace: TimeInterval = 3 * 86_400
}

/// How long a parcel may go without a new event in each status before it is stalled: accepted or in transit
/// three days, out for delivery one day, held at an office (for pickup, or brought back) five days.
public enum StallLimits {
    public static let limits: [(code: StatusCode, seconds: TimeInterval)] = [
        (.infoReceived, 3 * 86_400), (.inTransit, 3 * 86_400), (.outForDelivery, 86_400),
        (.availableForPickup, 5 * 86_400), (.attemptFailed, 5 * 86_400),
    ]
}

/// What the store refuses, with a stable code.
public enum WatchStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case limitReached(Int)
    case duplicateKeyName(String)
    /// The same number was removed by another request while this one added it.
    case removedWhileAdding(String)
    /// The engine (named) is backed up with its own tools.
    case backupUnsupported(String)
    /// The owner follows the number (formatted) at another carrier (named) already.
    case watchedAtAnotherCarrier(String, Carrier)
    case channelLimitReached(Int)
    /// A changes cursor older than the removals kept.
    case changesForgotten(Int64)
    /// A changes cursor past the list's latest change (from another list, or a database restored).
    case changesAhead(Int64)

    public var description: String {
        switch self {
        case .changesForgotten(let cursor):
            "the changes since \(cursor) are no longer kept (removals are kept \(Int(WatchChanges.removalsKept / 86_400)) days); "
                + "read the whole list again and follow from its cursor"
        case .changesAhead(let cursor):
            "\(cursor) is past this list's latest change: it is not a cursor of this list; read the whole list again "
                + "and follow from its cursor"
        case .removedWhileAdding(let number):
            "\(number) was removed by another request at the same moment it was being added; add it again to keep it"
        case .limitReached(let limit):
            "this owner already has \(limit) watches, the most this server allows (its --max-watches-per-owner); "
                + "remove some first"
        case .duplicateKeyName(let name): "a key named \"\(name)\" exists already; choose another name"
        case .backupUnsupported(let engine): "a watch list on \(engine) is backed up with its own tools (pg_dump)"
        case .channelLimitReached(let limit):
            "this owner already has \(limit) channels, the most allowed; remove one first"
        case .watchedAtAnotherCarrier(let number, let carrier):
            "\(number) is watched at \(carrier) already; a number is watched at one carrier: remove it first to "
                + "follow it at another"
        }
    }
}

extension WatchStore {
    /// Removes every finished watch of the owner.
    public func removeFinished(owner: WatchOwner) async throws -> [String] {
        try await removeFinished(owner: owner, checkedBefore: nil)
    }
}

extension WatchStore {
    /// Records a fresh answer, encoding it as the API serves it.
    @discardableResult
    public func record(
        _ shipment: Shipment, fetchedAt: Date, nextCheck: @escaping @Sendable (Watch, Shipment) -> Date?
    ) async throws -> [StatusChange] {
        try await record(
            shipment, served: ServedShipment.encode(shipment, fetchedAt: fetchedAt), fetchedAt: fetchedAt,
            nextCheck: nextCheck)
    }

    /// A watch found at its first answer (the carrier not named).
    public func add(
        _ number: TrackingNumber, label: String?, owner: WatchOwner, webhook: (url: String, secret: String)?,
        now: Date
    ) async throws -> AddedWatch {
        try await add(number, carrier: nil, label: label, record: nil, owner: owner, webhook: webhook, now: now)
    }

    /// A watch without a record.
    public func add(
        _ number: TrackingNumber, carrier: Carrier?, label: String?, owner: WatchOwner,
        webhook: (url: String, secret: String)?, now: Date
    ) async throws -> AddedWatch {
        try await add(number, carrier: carrier, label: label, record: nil, owner: owner, webhook: webhook, now: now)
    }

    /// Changes a watch's label and webhook, its record as it is.
    public func update(
        _ number: TrackingNumber, owner: WatchOwner, label: String??, webhook: (url: String, secret: String)??,
        now: Date
    ) async throws -> Watch? {
        try await update(number, owner: owner, label: label, record: nil, webhook: webhook, now: now)
    }

    /// Claims numbers due, filled with any due by `horizon` (whatever their interval).
    public func claimDueChecks(now: Date, horizon: Date, limit: Int, leaseUntil: Date) async throws -> [DueCheck] {
        try await claimDueChecks(now: now, horizon: horizon, fillFraction: 1, limit: limit, leaseUntil: leaseUntil)
    }

    /// The numbers due, without their carriers.
    public func claimDue(now: Date, horizon: Date, limit: Int, leaseUntil: Date) async throws -> [TrackingNumber] {
        try await claimDueChecks(now: now, horizon: horizon, limit: limit, leaseUntil: leaseUntil).map(\.number)
    }

    /// Claims due deliveries, none excluded.
    public func claimDeliveries(at now: Date, limit: Int, leaseUntil: Date) async throws -> [PendingDelivery] {
        try await claimDeliveries(at: now, limit: limit, leaseUntil: leaseUntil, excludingWatches: [])
    }
}

/// One row of a batch of watches to add (``WatchStore/addMany(_:owner:now:)``).
public struct NewWatchRow: Sendable {
    public let number: TrackingNumber
    public let carrier: Carrier?
    public let label: String?
    public let record: ParcelRecordChange?

    public init(number: TrackingNumber, carrier: Carrier?, label: String?, record: ParcelRecordChange?) {
        self.number = number
        self.carrier = carrier
        self.label = label
        self.record = record
    }
}
