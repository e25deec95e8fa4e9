import Foundation
/// The watch store's tables, one migration per version. Applied at open, in order; never edited once
/// released (a change is a new version).
enum Schema {
    static let migrations: [SQLiteDatabase.Migration] = [
        // 1: watches, the latest shipment per number, every distinct event, and the log of changes.
        SQLiteDatabase.Migration(
            version: 1,
            sql: """
                CREATE TABLE watches (
                    id INTEGER PRIMARY KEY,
                    owner TEXT NOT NULL,
                    number TEXT NOT NULL,
                    label TEXT,
                    created_at REAL NOT NULL,
                    active INTEGER NOT NULL DEFAULT 1,
                    status_label TEXT,
                    status_json BLOB,
                    checked_at REAL,
                    next_check_at REAL NOT NULL,
                    UNIQUE (owner, number)
                );
                CREATE INDEX watches_due ON watches (active, next_check_at);
                CREATE INDEX watches_number ON watches (number);
                CREATE TABLE shipments (
                    number TEXT PRIMARY KEY,
                    json BLOB NOT NULL,
                    status_code TEXT NOT NULL,
                    status_label TEXT NOT NULL,
                    terminal INTEGER NOT NULL,
                    fetched_at REAL NOT NULL
                );
                CREATE TABLE events (
                    number TEXT NOT NULL,
                    label TEXT NOT NULL,
                    at TEXT NOT NULL,
                    place TEXT NOT NULL,
                    first_seen_at REAL NOT NULL,
                    UNIQUE (number, label, at, place)
                );
                CREATE TABLE changes (
                    id TEXT PRIMARY KEY,
                    watch_id INTEGER NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
                    created_at REAL NOT NULL,
                    previous_json BLOB NOT NULL,
                    shipment_json BLOB NOT NULL
                );
                CREATE INDEX changes_watch ON changes (watch_id);
                """),
        // 2: webhook subscriptions, the outbox, and every delivery attempt.
        SQLiteDatabase.Migration(
            version: 2,
            sql: """
                CREATE TABLE subscriptions (
                    id INTEGER PRIMARY KEY,
                    watch_id INTEGER NOT NULL UNIQUE REFERENCES watches (id) ON DELETE CASCADE,
                    url TEXT NOT NULL,
                    secret TEXT NOT NULL,
                    created_at REAL NOT NULL
                );
                CREATE TABLE outbox (
                    id INTEGER PRIMARY KEY,
                    change_id TEXT NOT NULL REFERENCES changes (id) ON DELETE CASCADE,
                    subscription_id INTEGER NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
                    state TEXT NOT NULL DEFAULT 'pending',
                    attempts INTEGER NOT NULL DEFAULT 0,
                    created_at REAL NOT NULL,
                    next_attempt_at REAL NOT NULL,
                    finished_at REAL
                );
                CREATE INDEX outbox_pending ON outbox (state, subscription_id, id);
                CREATE TABLE delivery_attempts (
                    id INTEGER PRIMARY KEY,
                    outbox_id INTEGER NOT NULL REFERENCES outbox (id) ON DELETE CASCADE,
                    at REAL NOT NULL,
                    status INTEGER,
                    error TEXT,
                    duration_ms REAL NOT NULL
                );
                CREATE INDEX delivery_attempts_outbox ON delivery_attempts (outbox_id);
                """),
        // 3: API keys (hashed) and their calendar tokens (hashed).
        SQLiteDatabase.Migration(
            version: 3,
            sql: """
                CREATE TABLE api_keys (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    key_hash BLOB NOT NULL UNIQUE,
                    calendar_hash BLOB NOT NULL UNIQUE,
                    created_at REAL NOT NULL,
                    revoked_at REAL
                );
                """),
        // 4: a subscription ended by its receiver (410 Gone), kept with its deliveries; settings the operator
        // made (the API opened without keys).
        SQLiteDatabase.Migration(
            version: 4,
            sql: """
                ALTER TABLE subscriptions ADD COLUMN ended_at REAL;
                ALTER TABLE subscriptions ADD COLUMN ended_reason TEXT;
                CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                """),
        // 5: the carrier a watch is followed at (NULL until found for a number added without one); every
        // watch made before carriers existed is Yamato's.
        SQLiteDatabase.Migration(
            version: 5,
            sql: """
                ALTER TABLE watches ADD COLUMN carrier TEXT;
                UPDATE watches SET carrier = 'yamato';
                """),
        // 6: notification channels of an owner, their outbox, and every attempt.
        SQLiteDatabase.Migration(
            version: 6,
            sql: """
                CREATE TABLE channels (
                    id INTEGER PRIMARY KEY,
                    owner TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    destination BLOB NOT NULL,
                    numbers TEXT,
                    kinds TEXT NOT NULL,
                    lang TEXT NOT NULL,
                    quiet_hours TEXT,
                    created_at REAL NOT NULL,
                    ended_at REAL,
                    ended_reason TEXT
                );
                CREATE INDEX channels_owner ON channels (owner);
                CREATE TABLE channel_outbox (
                    id INTEGER PRIMARY KEY,
                    channel_id INTEGER NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
                    watch_id INTEGER REFERENCES watches (id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    label TEXT,
                    shipment_json BLOB NOT NULL,
                    state TEXT NOT NULL DEFAULT 'pending',
                    attempts INTEGER NOT NULL DEFAULT 0,
                    created_at REAL NOT NULL,
                    next_attempt_at REAL NOT NULL,
                    finished_at REAL
                );
                CREATE INDEX channel_outbox_pending ON channel_outbox (state, channel_id, id);
                CREATE TABLE channel_attempts (
                    id INTEGER PRIMARY KEY,
                    outbox_id INTEGER NOT NULL REFERENCES channel_outbox (id) ON DELETE CASCADE,
                    at REAL NOT NULL,
                    status INTEGER,
                    error TEXT,
                    duration_ms REAL NOT NULL
                );
                CREATE INDEX channel_attempts_outbox ON channel_attempts (outbox_id);
                ALTER TABLE watches ADD COLUMN arriving_at REAL;
                ALTER TABLE watches ADD COLUMN arriving_window TEXT;
                ALTER TABLE watches ADD COLUMN announced_window TEXT;
                CREATE INDEX watches_arriving ON watches (arriving_at);
                """),
        SQLiteDatabase.Migration(
            version: 7,
            sql: """
                ALTER TABLE watches ADD COLUMN claimed_until REAL;
                """),
        // 8: what a list is narrowed by, kept on each watch and indexed per owner (its status code and family,
        // its forecast day, its last event, its label and number normalised for search), filled for the rows
        // already there.
        SQLiteDatabase.Migration(
            version: 8,
            sql: SchemaFills.listColumnsSQL(text: "TEXT") + """
                CREATE VIRTUAL TABLE watch_search USING fts5(
                    search_text, content = 'watches', content_rowid = 'id', tokenize = 'trigram');
                CREATE TRIGGER watches_search_in AFTER INSERT ON watches WHEN NEW.search_text IS NOT NULL BEGIN
                    INSERT INTO watch_search (rowid, search_text) VALUES (NEW.id, NEW.search_text);
                END;
                CREATE TRIGGER watches_search_out AFTER DELETE ON watches WHEN OLD.search_text IS NOT NULL BEGIN
                    INSERT INTO watch_search (watch_search, rowid, search_text)
                    VALUES ('delete', OLD.id, OLD.search_text);
                END;
                CREATE TRIGGER watches_search_moved AFTER UPDATE OF search_text ON watches BEGIN
                    INSERT INTO watch_search (watch_search, rowid, search_text)
                    SELECT 'delete', OLD.id, OLD.search_text WHERE OLD.search_text IS NOT NULL;
                    INSERT INTO watch_search (rowid, search_text)
                    SELECT NEW.id, NEW.search_text WHERE NEW.search_text IS NOT NULL;
                END;
                CREATE TRIGGER watches_tally_in AFTER INSERT ON watches BEGIN
                """ + SchemaFills.tallyAdded("NEW") + """
                END;
                CREATE TRIGGER watches_tally_out AFTER DELETE ON watches BEGIN
                """ + SchemaFills.tallyRemoved("OLD") + """
                END;
                CREATE TRIGGER watches_tally_moved
                AFTER UPDATE OF carrier, family, status_code, active, forecast_date ON watches
                WHEN OLD.carrier IS NOT NEW.carrier OR OLD.family IS NOT NEW.family
                    OR OLD.status_code IS NOT NEW.status_code OR OLD.active IS NOT NEW.active
                    OR OLD.forecast_date IS NOT NEW.forecast_date
                BEGIN
                """ + SchemaFills.tallyRemoved("OLD") + SchemaFills.tallyAdded("NEW") + """
                END;
                """,
            fill: { try SchemaFills.listColumns(on: $0) }),
        // 9: what the deliverer keeps of each channel: why it is failing, LINE's quota, a digest, a hold.
        SQLiteDatabase.Migration(version: 9, sql: "ALTER TABLE channels ADD COLUMN state TEXT;"),
        // 10: when a watch was found stalled (no new event for longer than its status allows), until one comes.
        SQLiteDatabase.Migration(version: 10, sql: "ALTER TABLE watches ADD COLUMN stalled_at REAL;"),
        // 11: a carrier's page no longer understood: since when a watch's page was refused, the refused pages kept
        // (redacted) as evidence, and each carrier's state, changed or not, shared by every server.
        SQLiteDatabase.Migration(version: 11, sql: SchemaFills.carrierPagesSQL(text: "TEXT", real: "REAL", blob: "BLOB", id: "INTEGER PRIMARY KEY")),
        // 12: the mailboxes read for shipping mails (where each was read up to), and the mail a watch came from.
        SQLiteDatabase.Migration(version: 12, sql: SchemaFills.mailboxesSQL(text: "TEXT", real: "REAL", integer: "INTEGER")),
        // 13: the Message-IDs of a mailbox's mails already turned into watches (a folder read again never adds twice).
        SQLiteDatabase.Migration(version: 13, sql: SchemaFills.mailboxMessagesSQL(text: "TEXT", real: "REAL")),
        // 14: what a shop or household knows of a parcel (``ParcelRecord``, JSON; searched through search_text), when
        // it is late and since when, and the reminder before a parcel kept after a missed delivery goes back.
        SQLiteDatabase.Migration(version: 14, sql: SchemaFills.recordSQL(text: "TEXT", real: "REAL")),
        // 15: what changed in a list since a cursor: each watch's place in one sequence of changes (bumped by a
        // change a person would see, never by a check that found the same answer), and the removals.
        SQLiteDatabase.Migration(
            version: 15,
            sql: SchemaFills.changesSQL(text: "TEXT", real: "REAL", integer: "INTEGER") + """
                CREATE TABLE watch_change_counter (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
                INSERT INTO watch_change_counter (id, value) VALUES (1, 0);
                CREATE TRIGGER watches_changed_in AFTER INSERT ON watches BEGIN
                """ + SchemaFills.sqliteNextChange("UPDATE watches SET changed_seq = ?, changed_at = ? WHERE id = NEW.id;") + """
                END;
                CREATE TRIGGER watches_changed AFTER UPDATE OF \(SchemaFills.seenColumns.joined(separator: ", ")) ON watches
                WHEN \(SchemaFills.seenColumns.map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR "))
                BEGIN
                """ + SchemaFills.sqliteNextChange("UPDATE watches SET changed_seq = ?, changed_at = ? WHERE id = NEW.id;") + """
                END;
                CREATE TRIGGER watches_changed_out AFTER DELETE ON watches BEGIN
                """ + SchemaFills.sqliteNextChange(
                    "INSERT INTO watch_removals (seq, owner, number, removed_at) VALUES (?, OLD.owner, OLD.number, ?);") + """
                END;
                """),
        SQLiteDatabase.Migration(
            version: 16,
            sql: SchemaFills.noticesSQL(
                text: "TEXT", real: "REAL", integer: "INTEGER", blob: "BLOB", id: "INTEGER PRIMARY KEY")),
        SQLiteDatabase.Migration(
            version: 17,
            sql: SchemaFills.accountsSQL(
                text: "TEXT", real: "REAL", integer: "INTEGER", blob: "BLOB", id: "INTEGER PRIMARY KEY",
                now: Date().timeIntervalSince1970.rounded())),
        SQLiteDatabase.Migration(version: 18, sql: SchemaFills.memberChannelsSQL(integer: "INTEGER", text: "TEXT")),
        SQLiteDatabase.Migration(version: 19, sql: SchemaFills.ownerListsSQL(now: Date().timeIntervalSince1970.rounded())),
        SQLiteDatabase.Migration(
            version: 20, sql: SchemaFills.passkeysSQL(text: "TEXT", real: "REAL", integer: "INTEGER", blob: "BLOB")),
        SQLiteDatabase.Migration(version: 21, sql: SchemaFills.morningSummariesSQL(text: "TEXT", integer: "INTEGER")),
        SQLiteDatabase.Migration(version: 22, sql: SchemaFills.usedChallengesSQL(real: "REAL", blob: "BLOB")),
    ]
}


/// Steps of migrations written in Swift, for both engines.
public enum SchemaFills {
    /// The columns of a watch a person sees in the list: a change to any of them is a change of the list
    /// (``WatchChanges``); `checked_at` and the poller's own columns are not.
    public static let seenColumns = [
        "label", "status_json", "status_code", "family", "forecast_date", "last_event_at", "record", "active",
        "stalled_at", "overdue_at", "carrier", "page_refused_at", "arriving_window", "answer_digest",
    ]

    /// Migration 15's tables and columns on either engine.
    public static func changesSQL(text: String, real: String, integer: String) -> String {
        """
        ALTER TABLE watches ADD COLUMN changed_seq \(integer) NOT NULL DEFAULT 0;
        ALTER TABLE watches ADD COLUMN changed_at \(real);
        ALTER TABLE watches ADD COLUMN answer_digest \(text);
        CREATE INDEX watches_owner_changed ON watches (owner, changed_seq);
        CREATE TABLE watch_removals (
            seq \(integer) PRIMARY KEY,
            owner \(text) NOT NULL,
            number \(text) NOT NULL,
            removed_at \(real) NOT NULL
        );
        CREATE INDEX watch_removals_owner ON watch_removals (owner, seq);
        CREATE INDEX watch_removals_time ON watch_removals (removed_at);
        CREATE TABLE watch_removals_forgotten (
            owner \(text) PRIMARY KEY,
            seq \(integer) NOT NULL
        );

        """
    }

    /// In an SQLite trigger: the next number of the change sequence, then `statement` with it and the time for
    /// its two `?`.
    static func sqliteNextChange(_ statement: String) -> String {
        let next = "(SELECT value FROM watch_change_counter WHERE id = 1)"
        let now = "((julianday('now') - 2440587.5) * 86400.0)"
        var parts = statement.components(separatedBy: "?")
        precondition(parts.count == 3, "two placeholders")
        parts = [parts[0], next, parts[1], now, parts[2]]
        return "\nUPDATE watch_change_counter SET value = value + 1 WHERE id = 1;\n" + parts.joined() + "\n"
    }

    /// Migration 14 on either engine.
    public static func recordSQL(text: String, real: String) -> String {
        """
        ALTER TABLE watches ADD COLUMN record \(text);
        ALTER TABLE watches ADD COLUMN due_at \(real);
        ALTER TABLE watches ADD COLUMN overdue_at \(real);
        ALTER TABLE watches ADD COLUMN reminder_at \(real);
        ALTER TABLE watches ADD COLUMN reminder_key \(text);
        ALTER TABLE watches ADD COLUMN reminded_key \(text);
        CREATE INDEX watches_late ON watches (due_at);
        CREATE INDEX watches_reminder ON watches (reminder_at);
        CREATE INDEX watches_owner_overdue ON watches (owner, overdue_at);
        CREATE INDEX watches_owner_stalled ON watches (owner, stalled_at);
        """
    }

    /// Migration 13 on either engine.
    public static func mailboxMessagesSQL(text: String, real: String) -> String {
        """
        CREATE TABLE mailbox_messages (
            mailbox \(text) NOT NULL,
            message_id \(text) NOT NULL,
            read_at \(real) NOT NULL,
            PRIMARY KEY (mailbox, message_id)
        );
        CREATE INDEX mailbox_messages_by_time ON mailbox_messages (mailbox, read_at);
        """
    }

    /// Migration 12 on either engine.
    public static func mailboxesSQL(text: String, real: String, integer: String) -> String {
        """
        ALTER TABLE watches ADD COLUMN source \(text);
        CREATE TABLE mailboxes (
            name \(text) PRIMARY KEY,
            uid_validity \(integer) NOT NULL,
            last_uid \(integer) NOT NULL,
            read_at \(real) NOT NULL,
            failing_since \(real),
            problem \(text)
        );
        """
    }

    /// Migration 11 on either engine.
    public static func carrierPagesSQL(text: String, real: String, blob: String, id: String) -> String {
        """
        ALTER TABLE watches ADD COLUMN page_refused_at \(real);
        CREATE TABLE refused_pages (
            id \(id),
            carrier \(text) NOT NULL,
            reason \(text) NOT NULL,
            message \(text) NOT NULL,
            url \(text) NOT NULL,
            received_at \(real) NOT NULL,
            charset \(text),
            numbers integer NOT NULL,
            redacted integer NOT NULL,
            size integer NOT NULL,
            body \(blob) NOT NULL
        );
        CREATE INDEX refused_pages_carrier ON refused_pages (carrier, received_at);
        CREATE TABLE carrier_pages (
            carrier \(text) PRIMARY KEY,
            changed_since \(real),
            reason \(text),
            updated_at \(real) NOT NULL
        );
        """
    }

    /// Migration 8 on either engine (`text` is the engine's text type).
    public static func listColumnsSQL(text: String) -> String {
        """
        ALTER TABLE watches ADD COLUMN status_code \(text);
        ALTER TABLE watches ADD COLUMN family \(text) NOT NULL DEFAULT 'pending';
        ALTER TABLE watches ADD COLUMN forecast_date \(text);
        ALTER TABLE watches ADD COLUMN last_event_at \(text);
        ALTER TABLE watches ADD COLUMN dated integer NOT NULL DEFAULT 0;
        ALTER TABLE watches ADD COLUMN search_text \(text);
        CREATE INDEX watches_owner ON watches (owner, id, search_text);
        CREATE INDEX watches_owner_active ON watches (owner, active, id);
        CREATE INDEX watches_owner_family ON watches (owner, family, id);
        CREATE INDEX watches_owner_code ON watches (owner, status_code, id);
        CREATE INDEX watches_owner_carrier ON watches (owner, carrier, id);
        CREATE INDEX watches_owner_forecast ON watches (owner, forecast_date, id);
        CREATE TABLE watch_tallies (
            owner \(text) NOT NULL, carrier \(text) NOT NULL, family \(text) NOT NULL, status_code \(text) NOT NULL,
            active integer NOT NULL, forecast_date \(text) NOT NULL, watches integer NOT NULL,
            PRIMARY KEY (owner, carrier, family, status_code, active, forecast_date)
        );
        INSERT INTO watch_tallies (owner, carrier, family, status_code, active, forecast_date, watches)
        SELECT owner, COALESCE(carrier, ''), family, COALESCE(status_code, ''), active, COALESCE(forecast_date, ''),
            COUNT(*)
        FROM watches GROUP BY owner, COALESCE(carrier, ''), family, COALESCE(status_code, ''), active,
            COALESCE(forecast_date, '');
        """
    }

    /// The statement that counts `row` (`NEW` in a trigger) in its tally, for the tally triggers of both engines.
    /// Each starts and ends with a line break, so it can stand between the lines of a multi-line literal.
    public static func tallyAdded(_ row: String) -> String {
        """

        INSERT INTO watch_tallies (owner, carrier, family, status_code, active, forecast_date, watches)
        VALUES (\(row).owner, COALESCE(\(row).carrier, ''), \(row).family, COALESCE(\(row).status_code, ''),
            \(row).active, COALESCE(\(row).forecast_date, ''), 1)
        ON CONFLICT (owner, carrier, family, status_code, active, forecast_date)
        DO UPDATE SET watches = watch_tallies.watches + 1;

        """
    }

    /// The statements that take `row` (`OLD`) out of its tally, and drop the tally once it counts none.
    public static func tallyRemoved(_ row: String) -> String {
        let same = """
            owner = \(row).owner AND carrier = COALESCE(\(row).carrier, '') AND family = \(row).family
                AND status_code = COALESCE(\(row).status_code, '') AND active = \(row).active
                AND forecast_date = COALESCE(\(row).forecast_date, '')
            """
        return """

            UPDATE watch_tallies SET watches = watches - 1 WHERE \(same);
            DELETE FROM watch_tallies WHERE \(same) AND watches = 0;

            """
    }

    /// Migration 8: the list columns of every watch that has none yet.
    public static func listColumns(on connection: some SQLConnection) throws {
        try ListColumns.backfill(on: connection)
    }
}
