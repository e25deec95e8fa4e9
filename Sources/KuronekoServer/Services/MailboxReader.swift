import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoStore
import Synchronization

/// Reads a mailbox for shipping mails every interval: the messages above the last UID read (under the folder's
/// UIDVALIDITY, both kept in the store after each message, so after a restart none is read twice and none is
/// skipped), each read by ``ShippingMailReader`` and its parcels watched for `owner` with the mail as their
/// source. Nothing is deleted; \Seen is left as it was unless `markSeen`. A failure is logged once (until the
/// mailbox reads again) and shown by `/readyz` and `/metrics`.
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
    }

    private let settings: MailboxSettings
    private let store: any WatchStore
    private let clock: any TrackingClock
    private let markSeen: Bool
    private let owner: WatchOwner
    private let log: @Sendable (String) -> Void
    private let added: @Sendable () -> Void
    private let mutableState = Mutex(State())

    init(
        settings: MailboxSettings, store: any WatchStore, clock: any TrackingClock, markSeen: Bool,
        owner: WatchOwner = .local, log: @escaping @Sendable (String) -> Void, added: @escaping @Sendable () -> Void
    ) {
        self.settings = settings
        self.store = store
        self.clock = clock
        self.markSeen = markSeen
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
            await pollOnce()
            try? await clock.sleep(until: clock.uptime + interval)
        }
    }

    /// Reads what is new now.
    func pollOnce() async {
        defer { mutableState.withLock { $0.polls += 1 } }
        do {
            let progress = try await store.mailboxProgress(name)
            let settings = self.settings
            let markSeen = self.markSeen
            let fetched: Result<Fetched, MailboxError> = await withCheckedContinuation { continuation in
                // libcurl blocks: the session lives on a thread of its own.
                Thread.detachNewThread {
                    continuation.resume(returning: Result { () throws(MailboxError) in
                        try Self.fetchNew(settings, after: progress, markSeen: markSeen)
                    })
                }
            }
            let new = try fetched.get()
            if new.uidValidity != progress?.uidValidity, progress != nil {
                log("mailbox \(name): UIDVALIDITY changed from \(progress?.uidValidity ?? 0) to \(new.uidValidity); the folder is read again (numbers already watched stay as they are)")
            }
            var parcels = 0
            for (uid, raw) in new.messages {
                parcels += try await watch(ShippingMailReader.read(raw))
                try await store.setMailboxProgress(name, uidValidity: new.uidValidity, lastUID: uid, at: clock.now)
            }
            if new.messages.isEmpty, progress?.uidValidity != new.uidValidity {
                try await store.setMailboxProgress(name, uidValidity: new.uidValidity, lastUID: 0, at: clock.now)
            }
            let recovered = mutableState.withLock { state -> Bool in
                defer { state.problem = nil }
                state.lastRead = clock.now
                state.messagesRead += new.messages.count
                state.parcelsWatched += parcels
                return state.problem != nil
            }
            if recovered { log("mailbox \(name) is read again") }
            if let first = new.messages.first?.0, let last = new.messages.last?.0 {
                log(
                    "mailbox \(name): read \(new.messages.count) new message\(new.messages.count == 1 ? "" : "s") "
                        + "(UID \(first)\(first == last ? "" : "–\(last)")), \(parcels) parcel\(parcels == 1 ? "" : "s") watched")
                if parcels > 0 { added() }
            }
        } catch {
            let problem = (error as? MailboxError)?.description ?? "the store failed: \(error)"
            let first = mutableState.withLock { state -> Bool in
                defer { state.problem = problem }
                return state.problem != problem
            }
            if first { log("mailbox: \(problem)") }
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

    struct Fetched: Sendable {
        let uidValidity: UInt64
        let messages: [(UInt64, Data)]
    }

    /// The messages above the last UID read (all of them when the folder's UIDVALIDITY changed), at most
    /// ``messagesPerPoll`` and ``bytesPerPoll``; \Seen put back as it was unless `markSeen`.
    static func fetchNew(
        _ settings: MailboxSettings, after progress: (uidValidity: UInt64, lastUID: UInt64)?, markSeen: Bool
    ) throws(MailboxError) -> Fetched {
        let session = try IMAPSession(settings)
        let status = try session.status()
        let after = progress.map { $0.uidValidity == status.uidValidity ? $0.lastUID : 0 } ?? 0
        let uids = Array(try session.uids(after: after).prefix(messagesPerPoll))
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
        return Fetched(uidValidity: status.uidValidity, messages: messages)
    }
}
