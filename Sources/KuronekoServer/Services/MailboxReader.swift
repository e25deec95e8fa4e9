import Foundation
import Logging
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore
import Synchronization

/// Reads a mailbox for shipping mails every interval: the messages above the last UID read (under the folder's
/// UIDVALIDITY, both kept in the store after each mail that added watches and at the end of each poll, so after
/// a restart none is skipped and none adds watches twice), each read by ``ShippingMailReader`` and its parcels watched for `owner` with the mail as their
/// source. Nothing is deleted; \Seen is left as it was unless `markSeen`. A failure is logged once (until the
/// mailbox reads again), shown by `/readyz` and `/metrics`, and told once to the operator's channels (those
/// that hear `page_changed`), as is its end. A poll that leaves messages waiting is followed at once by the next.
///
/// A message that cannot be fetched or read (a literal that never ends, one too large) is skipped with its UID
/// and reason, logged and counted; its neighbours are read all the same. A mail already turned into watches
/// (by its Message-ID) is never turned into watches again, so a folder read again after its UIDVALIDITY
/// changed brings back no watch the user removed; a UIDVALIDITY that changes again within the hour (a server
/// that renumbers at every session) is read on from the last UID instead of from the start, so nothing loops.
public final class MailboxReader: Sendable {
    /// The most messages read in one poll, and their most bytes: the rest waits for the next.
    static let messagesPerPoll = 200
    static let bytesPerPoll = 64 << 20
    /// The Message-IDs remembered per mailbox (the newest kept).
    static let messagesRemembered = 100_000
    /// A UIDVALIDITY that changes again within this long is not read from the start again.
    static let validityChangeQuiet: TimeInterval = 3_600

    public struct State: Sendable {
        public var problem: String?
        public var lastRead: Date?
        public var messagesRead = 0
        public var parcelsWatched = 0
        /// Polls made, read or failed.
        public var polls = 0
        /// Messages skipped: not fetched or not read (each logged with its UID and reason).
        public var messagesSkipped = 0
        /// When the folder's UIDVALIDITY last changed, as this server saw it.
        var validityChangedAt: Date?
        /// Whether the store has been told, since the start, that the mailbox is read.
        var storeToldReading = false
    }

    private let settings: MailboxSettings
    private let store: any WatchStore
    private let clock: any TrackingClock
    private let markSeen: Bool
    private let moveTo: String?
    private let owner: WatchOwner
    private let log: Logger
    private let failures: StoreFailures
    private let added: @Sendable () -> Void
    private let lanes: MailReadingLanes
    private let mutableState = Mutex(State())

    init(
        settings: MailboxSettings, store: any WatchStore, clock: any TrackingClock, markSeen: Bool,
        moveTo: String? = nil, owner: WatchOwner = .local, failures: StoreFailures = StoreFailures(),
        lanes: MailReadingLanes = MailReadingLanes(), log: Logger, added: @escaping @Sendable () -> Void
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

    static func record(_ state: State, into registry: MetricsRegistry) {
        registry.total(
            "kuroneko_mailbox_messages_read_total", help: "Messages read from the mailbox (--mailbox).",
            value: Double(state.messagesRead))
        registry.total(
            "kuroneko_mailbox_parcels_watched_total", help: "Parcels found in the mailbox's messages and watched.",
            value: Double(state.parcelsWatched))
        registry.level(
            "kuroneko_mailbox_failing", help: "1 while the mailbox cannot be read.", value: state.problem == nil ? 0 : 1)
        registry.total(
            "kuroneko_mailbox_polls_total", help: "Times the mailbox was read, or tried.", value: Double(state.polls))
        registry.total(
            "kuroneko_mailbox_messages_skipped_total",
            help: "Messages of the mailbox that could not be fetched or read, skipped.", value: Double(state.messagesSkipped))
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
            let changedAt = mutableState.withLock { $0.validityChangedAt }
            let now = clock.now
            let new = try await Self.onOwnThread { () throws(MailboxError) in
                try Self.fetchNew(settings, after: progress, markSeen: markSeen) { _ in
                    // After a change of UIDVALIDITY, the folder is read from the start, unless it changed lately too.
                    changedAt.map { now.timeIntervalSince($0) < Self.validityChangeQuiet } ?? false
                }
            }
            if let progress, new.uidValidity != progress.uidValidity {
                mutableState.withLock { $0.validityChangedAt = now }
                let numbers: Logger.Metadata = [
                    "mailbox": "\(name)", "from": "\(progress.uidValidity)", "to": "\(new.uidValidity)",
                ]
                if new.readOn {
                    log.warning(
                        "mailbox UIDVALIDITY changed again within the hour; read on instead of from the start",
                        metadata: numbers.merging(["uid": "\(progress.lastUID)"]) { $1 })
                } else {
                    log.warning(
                        """
                        mailbox UIDVALIDITY changed; the folder is read again (mails already turned into watches are \
                        not watched again)
                        """, metadata: numbers)
                }
            }
            var parcels = 0
            var shipping: [UInt64] = []
            var remembered = false
            for (index, item) in new.items.enumerated() {
                var watchedHere = 0
                switch item.outcome {
                case .success(let raw):
                    let mail = try await readOnLane(raw)
                    if let problem = mail.problem {
                        skip(item.uid, because: problem)
                    } else if let id = mail.messageID, !id.isEmpty, try await store.mailboxMessageKnown(name, messageID: id) {
                        // Turned into watches before (the folder is read again): nothing is added twice.
                    } else {
                        let watched = try await watch(mail)
                        watchedHere = watched
                        parcels += watched
                        if watched > 0, let id = mail.messageID, !id.isEmpty {
                            try await store.rememberMailboxMessage(name, messageID: id, at: clock.now)
                            remembered = true
                        }
                    }
                    if !mail.parcels.isEmpty || mail.deliveredWithoutNumber != nil { shipping.append(item.uid) }
                case .failure(let error):
                    skip(item.uid, because: error.description)
                }
                // Kept after each mail that added watches and at the end: a restart reads again at most the mails
                // that added none (and a mail read again adds nothing twice: its Message-ID is remembered).
                if watchedHere > 0 || index == new.items.count - 1 {
                    try await store.setMailboxProgress(name, uidValidity: new.uidValidity, lastUID: item.uid, at: clock.now)
                }
            }
            if remembered { try await store.forgetOldMailboxMessages(name, keeping: Self.messagesRemembered) }
            if let moveTo, !shipping.isEmpty {
                // Only once their parcels are watched and the progress kept: a move that fails leaves them in place.
                try await Self.onOwnThread { [shipping] () throws(MailboxError) in
                    try IMAPSession(settings).move(shipping, to: moveTo)
                }
                log.info(
                    "mailbox's shipping mails moved",
                    metadata: ["mailbox": "\(name)", "messages": .stringConvertible(shipping.count), "to": "\(moveTo)"])
            }
            if new.items.isEmpty, progress?.uidValidity != new.uidValidity {
                try await store.setMailboxProgress(
                    name, uidValidity: new.uidValidity, lastUID: new.readOn ? progress?.lastUID ?? 0 : 0, at: clock.now)
            }
            let (recovered, tell) = mutableState.withLock { state -> (Bool, Bool) in
                defer {
                    state.problem = nil
                    state.storeToldReading = true
                }
                state.lastRead = clock.now
                state.messagesRead += new.items.count
                state.parcelsWatched += parcels
                return (state.problem != nil, state.problem != nil || !state.storeToldReading)
            }
            if recovered { log.info("mailbox is read again", metadata: ["mailbox": "\(name)"]) }
            if tell {
                let notice = MailboxNotice(mailbox: name, restored: true, problem: nil, at: clock.now)
                _ = try await store.setMailboxProblem(name, problem: nil, at: clock.now, notice: notice.json())
            }
            if let first = new.items.first?.uid, let last = new.items.last?.uid {
                log.info(
                    "mailbox read",
                    metadata: [
                        "mailbox": "\(name)", "messages": .stringConvertible(new.items.count),
                        "uids": "\(first)\(first == last ? "" : "-\(last)")", "watched": .stringConvertible(parcels),
                    ])
                if parcels > 0 { added() }
            }
            return new.more
        } catch {
            if !(error is MailboxError) { failures.report(.mailbox, error, context: ["mailbox": "\(name)"]) }
            let problem = (error as? MailboxError)?.description ?? "the store failed: \(error)"
            let first = mutableState.withLock { state -> Bool in
                defer {
                    state.problem = problem
                    state.storeToldReading = false
                }
                return state.problem != problem
            }
            if first { log.warning("mailbox cannot be read", metadata: ["mailbox": "\(name)", "problem": .string(problem)]) }
            // Said to the operator's channels once per failure, whichever server of several sees it first.
            let notice = MailboxNotice(mailbox: name, restored: false, problem: problem, at: clock.now)
            do {
                _ = try await store.setMailboxProblem(name, problem: problem, at: clock.now, notice: notice.json())
            } catch {
                failures.report(.mailbox, error, context: ["mailbox": "\(name)"])
            }
            return false
        }
    }

    /// A message passed over: logged with its UID and why (once: the progress moves past it), and counted.
    private func skip(_ uid: UInt64, because reason: String) {
        mutableState.withLock { $0.messagesSkipped += 1 }
        log.info(
            "mailbox message skipped", metadata: ["mailbox": "\(name)", "uid": "\(uid)", "reason": .string(reason)])
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
                    parcel.number, carrier: parcel.carrier, label: WatchRoutes.mailLabel(parcel),
                    record: WatchRoutes.mailRecord(parcel), owner: owner, webhook: nil, now: clock.now)
                try await store.setWatchSource(parcel.number, owner: owner, source: sourceJSON)
                count += 1
            } catch let refusal as WatchStoreError {
                log.info(
                    "mailbox parcel not watched",
                    metadata: [
                        "mailbox": "\(name)", "number": "\(parcel.number.masked)",
                        "subject": .string(String(mail.subject.prefix(60))), "reason": "\(refusal)",
                    ])
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

    /// One message of a poll: its bytes, or why it could not be fetched.
    struct Item: Sendable {
        let uid: UInt64
        let outcome: Result<Data, MailboxError>
    }

    struct Fetched: Sendable {
        let uidValidity: UInt64
        let items: [Item]
        /// Whether more new messages wait than this poll read.
        let more: Bool
        /// Whether, the UIDVALIDITY having changed, the folder was read on from the last UID, not from the start.
        let readOn: Bool
    }

    /// The messages above the last UID read (all of them when the folder's UIDVALIDITY changed, unless
    /// `readOnAfterChange` says to read on), at most ``messagesPerPoll`` and about ``bytesPerPoll``, fetched
    /// ``IMAPSession/fetchBatch`` at a time without marking them \Seen (marked after, with `markSeen`). A batch
    /// whose fetch fails (a message that never ends, a lost connection) is fetched again one message at a time
    /// on a new connection; a message that still fails is an item with its error, and the others are read.
    static func fetchNew(
        _ settings: MailboxSettings, after progress: (uidValidity: UInt64, lastUID: UInt64)?, markSeen: Bool,
        readOnAfterChange: (UInt64) -> Bool = { _ in false }
    ) throws(MailboxError) -> Fetched {
        let session = try IMAPSession(settings)
        let status = try session.status()
        var readOn = false
        var after: UInt64 = 0
        if let progress {
            if progress.uidValidity == status.uidValidity {
                after = progress.lastUID
            } else if readOnAfterChange(status.uidValidity) {
                after = progress.lastUID
                readOn = true
            }
        }
        let found = try session.uids(after: after, limit: messagesPerPoll + 1)
        let uids = Array(found.prefix(messagesPerPoll))
        let sizes = try session.sizes(uids)
        var items: [Item] = []
        var bytes = 0
        var wanted: [UInt64] = []
        for uid in uids {
            let size = sizes[uid] ?? 0
            if size > IMAPSession.maximumMessageBytes {
                items.append(
                    Item(
                        uid: uid,
                        outcome: .failure(
                            MailboxError(
                                description: "it is \(size) bytes, larger than \(IMAPSession.maximumMessageBytes >> 20) MiB",
                                tooLarge: true))))
                continue
            }
            if bytes + size > bytesPerPoll, !wanted.isEmpty || !items.isEmpty { break }
            bytes += size
            wanted.append(uid)
        }
        for batch in IMAPSession.batches(wanted) {
            var got: [UInt64: Result<Data, MailboxError>]
            do {
                got = try session.fetch(batch)
            } catch {
                // One at a time, each on the connection the last one left (a new one after a failure).
                got = [:]
                for uid in batch {
                    do throws(MailboxError) {
                        got[uid] = .success(try session.fetch(uid: uid))
                    } catch {
                        got[uid] = .failure(error)
                    }
                }
            }
            for uid in batch {
                items.append(
                    Item(uid: uid, outcome: got[uid] ?? .failure(MailboxError(description: "the server sent no message for it"))))
            }
        }
        items.sort { $0.uid < $1.uid }
        let read = items.compactMap { item -> UInt64? in (try? item.outcome.get()) == nil ? nil : item.uid }
        if markSeen, !read.isEmpty { try session.setSeen(true, uids: read) }
        let last = items.last?.uid ?? after
        return Fetched(
            uidValidity: status.uidValidity, items: items, more: found.count > items.count || found.contains { $0 > last },
            readOn: readOn)
    }
}
