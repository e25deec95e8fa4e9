import Logging
import Kuroneko

/// The schema versions of the watch store, the same on SQLite and PostgreSQL: what each one does, said before
/// it runs, and the refusal of a database written by a newer Kuroneko.
public enum SchemaVersions {
    /// What migrating to each version does, in the words printed before it runs.
    public static let summaries: [Int: String] = [
        1: "creates the watch list (watches, the latest shipment per number, events, the log of changes)",
        2: "adds webhook subscriptions, their outbox and the log of delivery attempts",
        3: "adds API keys and their calendar tokens (stored hashed)",
        4: "adds the end of a subscription its receiver refused (410 Gone) and the operator's settings",
        5: "adds the carrier each watch is followed at (every watch made before is Yamato's)",
        6:
            "adds notification channels, their outbox and the log of their attempts, and each watch's next forecast window",
        7: "adds the end of each watch's claim by a server, so polls can be filled with numbers due soon",
        8:
            "adds what a list is narrowed by to each watch (status, family, forecast day, last event, search text), "
            + "indexed, and fills it for every watch already there; counts each owner's watches",
        9: "adds what the deliverer keeps of each channel (why it is failing, LINE's quota, a digest, a hold)",
        10: "adds when each watch was found stalled (no new event for longer than its status allows)",
        11:
            "adds when a watch's carrier page was not understood, the refused pages kept (masked) as evidence, and "
            + "each carrier's page state",
        12:
            "adds the mailboxes read for shipping mails (where each was read up to, and since when one fails) and the "
            + "mail each watch came from",
        13: "adds the Message-IDs of each mailbox's mails already turned into watches, so a folder read again adds none twice",
        14:
            "adds each watch's parcel record (the shop's reference, the recipient, the ship date, a note, handled, other "
            + "columns), when it is late, and the reminder the day before a parcel kept after a missed delivery goes back",
        15:
            "adds each watch's place in the list's sequence of changes (what a person would see, not a check that found "
            + "the same answer) and the removals of the last 7 days, so a page asks only what changed",
        16:
            "adds customer notices: each owner's settings, the notices queued for parcels' recipients and their "
            + "outcome, and the addresses that asked for no more",
        17:
            "adds people and their sign-in (passwords stored as scrypt hashes, sessions and invitations stored "
            + "hashed), lists with members and roles (today's watch list becomes the list of the first account made), "
            + "each list's audit log, and a key's list and role",
        18: "adds the member a channel belongs to (their own phone, quiet hours and events) and the device's name",
        19:
            "makes each list that exists a list people can share: a key made on the command line keeps its own list, "
            + "named by the key, and the admins of today's list become its admins",
        20: "adds each person's passkeys (the credential's public key and counter, its name, when made and last used)",
        21: "adds the morning summary's time of each channel that hears it, and the last day one was made for it",
        22: "adds the passkey challenges already answered, until they expire, so that each is taken once",
    ]

    /// The newest version this build knows.
    public static var latest: Int { summaries.keys.max() ?? 0 }

    /// Says a migration before it runs: `migrating the watch list` with the database, the two versions and what
    /// the step adds (`summary`), as fields.
    public static func announce(migrating location: String, from: Int, to: Int, on log: Logger?) {
        log?.notice(
            "migrating the watch list",
            metadata: [
                "db": .string(location), "from": .stringConvertible(from), "to": .stringConvertible(to),
                "summary": .string(summaries[to] ?? "no description"),
            ])
    }

    /// Says that a new database is made whole, in one step said once: `creating the watch list` with the
    /// database and the version it is made at.
    public static func announce(creating location: String, version: Int, on log: Logger?) {
        log?.notice(
            "creating the watch list", metadata: ["db": .string(location), "schema_version": .stringConvertible(version)])
    }

    /// Refuses a version newer than `supported`, before anything is written.
    public static func check(found: Int, supported: Int, location: String) throws(NewerSchemaError) {
        guard found <= supported else {
            throw NewerSchemaError(location: location, found: found, supported: supported)
        }
    }
}

/// A database at a schema version this build does not know: written by a newer Kuroneko. Nothing was changed.
public struct NewerSchemaError: Error, CustomStringConvertible, Equatable {
    public let location: String
    public let found: Int
    public let supported: Int

    public var description: String {
        "the database \(location) is at schema version \(found), written by a newer Kuroneko; this one "
            + "(\(KuronekoVersion.version)) knows versions up to \(supported) and left the database untouched: "
            + "run the newer kuroneko, or restore a backup made before the upgrade"
    }
}
