import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore
import Synchronization

/// Reads a mailbox for shipping mails every interval: the messages above the last UID read (under the folder's
/// UIDVALIDITY, both kept in the store after each message, so after a restart none is read twice and none is
/// skipped), each read by ``ShippingMailReader`` and its parcels watched for `owner` with the mail as their
/// source. Nothing is deleted; \Seen is left as it was unless `markSeen`. A failure is logged once (until the
/// mailbox reads again), shown by `/readyz` and `/metrics`, and told once to the operator's channels (those
/// that hear `page_changed`), as is its end. A poll that leaves messages waiting is followed at once by the next.
public final class MailboxReader: Sendable {
    /// The most messages read in one poll, and their most bytes: the rest waits for the next.
    static let messagesPerPoll = 200
    static let bytesPerPoll = 64 << 20

    public struct State: Sendable {
        public var problem: String?
        public var lastRead: Date?
        public var messagesRead = 0
        public var parcelsWatched = 0
        /// Polls made, read or failed.
        public var polls = 0
        /// Whether the store has been told, since the start, that the mailbox is read.
        var storeToldReading = false
    }

    private let settings: MailboxSettings
    private let store: any WatchStore
    private let clock: any TrackingClock
    private let markSeen: Bool
    private let moveTo: String?
    private let owner: WatchOwner
    private let log: @Sendable (String) -> Void
    private let failures: StoreFailures
    private let added: @Sendable () -> Void
    private let lanes: MailReadingLanes
    private let mutableState = Mutex(State())

    init(
        settings: MailboxSettings, store: any WatchStore, clock: any TrackingClock, markSeen: Bool,
        moveTo: String? = nil, owner: WatchOwner = .local, failures: StoreFailures = StoreFailures(),
        lanes: MailReadingLanes = MailReadingLanes(), log: @escaping @Sendable (String) -> Void, added: @escaping @Sendable () -> Void
    ) {
        self.settings = settings
        self.store = store
        self.clock = clock
        self.markSeen = markSeen
        self.moveTo = moveTo
        self.failures = failures
        self.lanes = lanes
        self.owner = owner
        self.log = log
        self.added = added
    }

    public var state: State { mutableState.withLock { $0 } }

    static func prometheusLines(_ state: State) -> [String] {
        [
            "# HELP kuroneko_mailbox_messages_read_total Messages read from the mailbox (--mailbox).",
            "# TYPE kuroneko_mailbox_messages_read_total counter",
            "kuroneko_mailbox_messages_read_total \(state.messagesRead)",
            "# HELP kuroneko_mailbox_parcels_watched_total Parcels found in the mailbox's messages and watched.",
            "# TYPE kuroneko_mailbox_parcels_watched_total counter",
            "kuroneko_mailbox_parcels_watched_total \(state.parcelsWatched)",
            "# HELP kuroneko_mailbox_failing 1 while the mailbox cannot be read.",
            "# TYPE kuroneko_mailbox_failing gauge",
            "kuroneko_mailbox_failing \(state.problem == nil ? 0 : 1)",
            "# HELP kuroneko_mailbox_polls_total Times the mailbox was read, or tried.",
            "# TYPE kuroneko_mailbox_polls_total counter",
            "kuroneko_mailbox_polls_total \(state.polls)",
        ]
    }
    /// The name the mailbox's progress is kept under (its URL without a password).
    var name: String { settings.description }

    func run(every interval: Duration) async {
        while !Task.isCancelled {
            // A mailbox with more waiting than one poll reads (a first start on a full folder) is read on at once.
            if await pollOnce() { continue }
            try? await clock.sleep(until: clock.uptime + interval)
        }
    }

    /// Reads what is new now. - Returns: whether messages are left for the next poll.
    @discardableResult
    func pollOnce() async -> Bool {
        defer { mutableState.withLock { $0.polls += 1 } }
        do {
            let progress = try await store.mailboxProgress(name)
            let settings = self.settings
            let markSeen = self.markSeen
            let new = try await Self.onOwnThread { () throws(MailboxError) in
                try Self.fetchNew(settings, after: progress, markSeen: markSeen)
            }
            if new.uidValidity != progress?.uidValidity, progress != nil {
                log("mailbox \(name): UIDVALIDITY changed from \(progress?.uidValidity ?? 0) to \(new.uidValidity); the folder is read again (numbers already watched stay as they are)")
            }
            var parcels = 0
            var shipping: [UInt64] = []
            for (uid, raw) in new.messages {
                let mail = try await readOnLane(raw)
                parcels += try await watch(mail)
                try await store.setMailboxProgress(name, uidValidity: new.uidValidity, lastUID: uid, at: clock.now)
                if !mail.parcels.isEmpty || mail.deliveredWithoutNumber != nil { shipping.append(uid) }
            }
            if let moveTo, !shipping.isEmpty {
                // Only once their parcels are watched and the progress kept: a move that fails leaves them in place.
                try await Self.onOwnThread { [shipping] () throws(MailboxError) in
                    try IMAPSession(settings).move(shipping, to: moveTo)
                }
                log("mailbox \(name): moved \(shipping.count) shipping mail\(shipping.count == 1 ? "" : "s") to \(moveTo)")
            }
            if new.messages.isEmpty, progress?.uidValidity != new.uidValidity {
                try await store.setMailboxProgress(name, uidValidity: new.uidValidity, lastUID: 0, at: clock.now)
            }
            let (recovered, tell) = mutableState.withLock { state -> (Bool, Bool) in
                defer {
                    state.problem = nil
                    state.storeToldReading = true
                }
                state.lastRead = clock.now
                state.messagesRead += new.messages.count
                state.parcelsWatched += parcels
                return (state.problem != nil, state.problem != nil || !state.storeToldReading)
            }
            if recovered { log("mailbox \(name) is read again") }
            if tell {
                let notice = MailboxNotice(mailbox: name, restored: true, problem: nil, at: clock.now)
                _ = try await store.setMailboxProblem(name, problem: nil, at: clock.now, notice: notice.json())
            }
            if let first = new.messages.first?.0, let last = new.messages.last?.0 {
                log(
                    "mailbox \(name): read \(new.messages.count) new message\(new.messages.count == 1 ? "" : "s") "
                        + "(UID \(first)\(first == last ? "" : "–\(last)")), \(parcels) parcel\(parcels == 1 ? "" : "s") watched")
                if parcels > 0 { added() }
            }
            return new.more
        } catch {
            if !(error is MailboxError) { failures.report(.mailbox, error, context: "mailbox=\(name)") }
            let problem = (error as? MailboxError)?.description ?? "the store failed: \(error)"
            let first = mutableState.withLock { state -> Bool in
                defer {
                    state.problem = problem
                    state.storeToldReading = false
                }
                return state.problem != problem
            }
            if first { log("mailbox: \(problem)") }
            // Said to the operator's channels once per failure, whichever server of several sees it first.
            let notice = MailboxNotice(mailbox: name, restored: false, problem: problem, at: clock.now)
            do {
                _ = try await store.setMailboxProblem(name, problem: problem, at: clock.now, notice: notice.json())
            } catch {
                failures.report(.mailbox, error, context: "mailbox=\(name)")
            }
            return false
        }
    }

    /// `raw` read on a mail-reading lane; when every lane is taken by uploads, waits for one (the mailbox is
    /// never in a hurry), a second at a time, as long as the poll is not cancelled.
    private func readOnLane(_ raw: Data) async throws -> ShippingMail {
        while true {
            do {
                return try await lanes.read(raw)
            } catch {
                try await clock.sleep(until: clock.uptime + .seconds(1))
            }
        }
    }

    /// Watches a mail's parcels for the owner, each with the mail as its source. - Returns: how many.
    private func watch(_ mail: ShippingMail) async throws -> Int {
        var count = 0
        let sourceJSON = try JSONSerialization.data(
            withJSONObject: WatchSource.object(of: mail, mailbox: name), options: [.sortedKeys])
        for parcel in mail.parcels {
            do {
                _ = try await store.add(
                    parcel.number, carrier: parcel.carrier, label: WatchRoutes.mailLabel(parcel), owner: owner,
                    webhook: nil, now: clock.now)
                try await store.setWatchSource(parcel.number, owner: owner, source: sourceJSON)
                count += 1
            } catch let refusal as WatchStoreError {
                log("mailbox \(name): \(parcel.number.masked) from \"\(mail.subject.prefix(60))\" not watched: \(refusal)")
            }
        }
        return count
    }

    /// Runs `body` on a thread of its own (libcurl blocks) and waits for it.
    private static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws(MailboxError) -> T) async throws(MailboxError)
        -> T
    {
        let outcome: Result<T, MailboxError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Result { () throws(MailboxError) in try body() }) }
        }
        return try outcome.get()
    }

    struct Fetched: Sendable {
        let uidValidity: UInt64
        let messages: [(UInt64, Data)]
        /// Whether more new messages wait than this poll read.
        let more: Bool
    }

    /// The messages above the last UID read (all of them when the folder's UIDVALIDITY changed), at most
    /// ``messagesPerPoll`` and ``bytesPerPoll``; \Seen put back as it was unless `markSeen`.
    static func fetchNew(
        _ settings: MailboxSettings, after progress: (uidValidity: UInt64, lastUID: UInt64)?, markSeen: Bool
    ) throws(MailboxError) -> Fetched {
        let session = try IMAPSession(settings)
        let status = try session.status()
        let after = progress.map { $0.uidValidity == status.uidValidity ? $0.lastUID : 0 } ?? 0
        let all = try session.uids(after: after)
        let uids = Array(all.prefix(messagesPerPoll))
        let unseen = try session.unseen(uids)
        var messages: [(UInt64, Data)] = []
        var bytes = 0
        for uid in uids {
            let raw: Data
            do {
                raw = try session.fetch(uid: uid)
            } catch where error.tooLarge {
                // Passed over (read as empty): a message too large to be a shipping notice must not stop the rest.
                raw = Data()
            }
            if markSeen {
                try session.setSeen(true, uid: uid)
            } else if unseen.contains(uid) {
                try session.setSeen(false, uid: uid)
            }
            messages.append((uid, raw))
            bytes += raw.count
            if bytes >= bytesPerPoll { break }
        }
        return Fetched(uidValidity: status.uidValidity, messages: messages, more: messages.count < all.count)
    }
}
