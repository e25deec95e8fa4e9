import Foundation
import Logging
import KuronekoStore

/// The watch store's tables on PostgreSQL, one migration per version, applied at start under an advisory
/// lock (servers starting together migrate once; the version is read again inside the lock). Times are
/// seconds since 1970 as `double precision`, as on SQLite, so one set of statements serves both; `seq`
/// columns give `events` and `changes` the insertion order SQLite's `rowid` gives.
enum PostgresSchema {
    /// `pg_advisory_lock` key for migrations: "kuroneko" in a 64-bit number of its own.
    static let migrationLock: Int64 = 0x6B75_726F_6E65_6B6F

    static let migrations: [(version: Int, sql: String, fill: (@Sendable (PostgresConnection) throws -> Void)?)] = [
        (
            1,
            """
            CREATE TABLE watches (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                owner text NOT NULL,
                number text NOT NULL,
                label text,
                created_at double precision NOT NULL,
                active integer NOT NULL DEFAULT 1,
                status_label text,
                status_json bytea,
                checked_at double precision,
                next_check_at double precision NOT NULL,
                UNIQUE (owner, number)
            );
            CREATE INDEX watches_due ON watches (active, next_check_at);
            CREATE INDEX watches_number ON watches (number);
            CREATE TABLE shipments (
                number text PRIMARY KEY,
                json bytea NOT NULL,
                status_code text NOT NULL,
                status_label text NOT NULL,
                terminal integer NOT NULL,
                fetched_at double precision NOT NULL
            );
            CREATE TABLE events (
                seq bigint GENERATED ALWAYS AS IDENTITY,
                number text NOT NULL,
                label text NOT NULL,
                at text NOT NULL,
                place text NOT NULL,
                first_seen_at double precision NOT NULL,
                UNIQUE (number, label, at, place)
            );
            CREATE TABLE changes (
                id text PRIMARY KEY,
                seq bigint GENERATED ALWAYS AS IDENTITY,
                watch_id bigint NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
                created_at double precision NOT NULL,
                previous_json bytea NOT NULL,
                shipment_json bytea NOT NULL
            );
            CREATE INDEX changes_watch ON changes (watch_id);
            CREATE TABLE subscriptions (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                watch_id bigint NOT NULL UNIQUE REFERENCES watches (id) ON DELETE CASCADE,
                url text NOT NULL,
                secret text NOT NULL,
                created_at double precision NOT NULL
            );
            CREATE TABLE outbox (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                change_id text NOT NULL REFERENCES changes (id) ON DELETE CASCADE,
                subscription_id bigint NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
                state text NOT NULL DEFAULT 'pending',
                attempts integer NOT NULL DEFAULT 0,
                created_at double precision NOT NULL,
                next_attempt_at double precision NOT NULL,
                finished_at double precision
            );
            CREATE INDEX outbox_pending ON outbox (state, subscription_id, id);
            CREATE TABLE delivery_attempts (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                outbox_id bigint NOT NULL REFERENCES outbox (id) ON DELETE CASCADE,
                at double precision NOT NULL,
                status integer,
                error text,
                duration_ms double precision NOT NULL
            );
            CREATE INDEX delivery_attempts_outbox ON delivery_attempts (outbox_id);
            CREATE TABLE api_keys (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                name text NOT NULL UNIQUE,
                key_hash bytea NOT NULL UNIQUE,
                calendar_hash bytea NOT NULL UNIQUE,
                created_at double precision NOT NULL,
                revoked_at double precision
            );
            """,
            nil
        ),
        (
            2,
            """
            CREATE TABLE upstream_slots (
                slot integer PRIMARY KEY,
                holder text,
                lease_until double precision NOT NULL DEFAULT 0
            );
            CREATE TABLE upstream_pacing (
                id integer PRIMARY KEY CHECK (id = 1),
                last_start double precision NOT NULL DEFAULT 0
            );
            INSERT INTO upstream_pacing (id) VALUES (1);
            """,
            nil
        ),
        (
            3,
            """
            ALTER TABLE upstream_pacing ADD COLUMN last_sent double precision NOT NULL DEFAULT 0;
            ALTER TABLE upstream_pacing ADD COLUMN shortest_gap double precision;
            """,
            nil
        ),
        (
            4,
            """
            ALTER TABLE subscriptions ADD COLUMN ended_at double precision;
            ALTER TABLE subscriptions ADD COLUMN ended_reason text;
            CREATE TABLE settings (name text PRIMARY KEY, value text NOT NULL);
            """,
            nil
        ),
        (
            5,
            """
            ALTER TABLE watches ADD COLUMN carrier text;
            UPDATE watches SET carrier = 'yamato';
            """,
            nil
        ),
        (
            6,
            """
            CREATE TABLE channels (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                owner text NOT NULL,
                kind text NOT NULL,
                destination bytea NOT NULL,
                numbers text,
                kinds text NOT NULL,
                lang text NOT NULL,
                quiet_hours text,
                created_at double precision NOT NULL,
                ended_at double precision,
                ended_reason text
            );
            CREATE INDEX channels_owner ON channels (owner);
            CREATE TABLE channel_outbox (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
                watch_id bigint REFERENCES watches (id) ON DELETE CASCADE,
                kind text NOT NULL,
                label text,
                shipment_json bytea NOT NULL,
                state text NOT NULL DEFAULT 'pending',
                attempts integer NOT NULL DEFAULT 0,
                created_at double precision NOT NULL,
                next_attempt_at double precision NOT NULL,
                finished_at double precision
            );
            CREATE INDEX channel_outbox_pending ON channel_outbox (state, channel_id, id);
            CREATE TABLE channel_attempts (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                outbox_id bigint NOT NULL REFERENCES channel_outbox (id) ON DELETE CASCADE,
                at double precision NOT NULL,
                status integer,
                error text,
                duration_ms double precision NOT NULL
            );
            CREATE INDEX channel_attempts_outbox ON channel_attempts (outbox_id);
            ALTER TABLE watches ADD COLUMN arriving_at double precision;
            ALTER TABLE watches ADD COLUMN arriving_window text;
            ALTER TABLE watches ADD COLUMN announced_window text;
            CREATE INDEX watches_arriving ON watches (arriving_at);
            """,
            nil
        ),
        (7, "ALTER TABLE watches ADD COLUMN claimed_until double precision;", nil),
        (
            8,
            SchemaFills.listColumnsSQL(text: "text")
                + """
                ALTER TABLE upstream_slots ADD COLUMN carrier text NOT NULL DEFAULT 'yamato';
                ALTER TABLE upstream_slots DROP CONSTRAINT upstream_slots_pkey;
                ALTER TABLE upstream_slots ADD PRIMARY KEY (carrier, slot);
                ALTER TABLE upstream_pacing ADD COLUMN carrier text NOT NULL DEFAULT 'yamato';
                ALTER TABLE upstream_pacing DROP CONSTRAINT upstream_pacing_pkey;
                ALTER TABLE upstream_pacing DROP CONSTRAINT upstream_pacing_id_check;
                ALTER TABLE upstream_pacing ALTER COLUMN id SET DEFAULT 1;
                ALTER TABLE upstream_pacing ADD PRIMARY KEY (carrier);
                CREATE FUNCTION kuroneko_tally_watches() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP = 'UPDATE' AND OLD.carrier IS NOT DISTINCT FROM NEW.carrier
                        AND OLD.family IS NOT DISTINCT FROM NEW.family
                        AND OLD.status_code IS NOT DISTINCT FROM NEW.status_code
                        AND OLD.active IS NOT DISTINCT FROM NEW.active
                        AND OLD.forecast_date IS NOT DISTINCT FROM NEW.forecast_date THEN
                        RETURN NEW;
                    END IF;
                    IF TG_OP IN ('UPDATE', 'DELETE') THEN
                """ + SchemaFills.tallyRemoved("OLD") + """
                    END IF;
                    IF TG_OP IN ('UPDATE', 'INSERT') THEN
                """ + SchemaFills.tallyAdded("NEW") + """
                        RETURN NEW;
                    END IF;
                    RETURN OLD;
                END
                $$;
                CREATE TRIGGER watches_tallied AFTER INSERT OR DELETE
                    OR UPDATE OF carrier, family, status_code, active, forecast_date ON watches
                    FOR EACH ROW EXECUTE FUNCTION kuroneko_tally_watches();
                """,
            { try SchemaFills.listColumns(on: $0) }
        ),
        (9, "ALTER TABLE channels ADD COLUMN state text;", nil),
        (10, "ALTER TABLE watches ADD COLUMN stalled_at double precision;", nil),
        (
            11,
            SchemaFills.carrierPagesSQL(
                text: "text", real: "double precision", blob: "bytea", id: "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
            nil
        ),
        (12, SchemaFills.mailboxesSQL(text: "text", real: "double precision", integer: "bigint"), nil),
        (13, SchemaFills.mailboxMessagesSQL(text: "text", real: "double precision"), nil),
        (14, SchemaFills.recordSQL(text: "text", real: "double precision"), nil),
        (
            15,
            SchemaFills.changesSQL(text: "text", real: "double precision", integer: "bigint") + """
                CREATE SEQUENCE watch_change_seq;
                CREATE FUNCTION kuroneko_watch_changed() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP = 'DELETE' THEN
                        INSERT INTO watch_removals (seq, owner, number, removed_at)
                        VALUES (nextval('watch_change_seq'), OLD.owner, OLD.number, extract(epoch FROM clock_timestamp()));
                        RETURN OLD;
                    END IF;
                    IF TG_OP = 'UPDATE' AND \(SchemaFills.seenColumns.map { "OLD.\($0) IS NOT DISTINCT FROM NEW.\($0)" }
                        .joined(separator: " AND ")) THEN
                        RETURN NEW;
                    END IF;
                    NEW.changed_seq := nextval('watch_change_seq');
                    NEW.changed_at := extract(epoch FROM clock_timestamp());
                    RETURN NEW;
                END
                $$;
                CREATE TRIGGER watches_changed BEFORE INSERT
                    OR UPDATE OF \(SchemaFills.seenColumns.joined(separator: ", ")) ON watches
                    FOR EACH ROW EXECUTE FUNCTION kuroneko_watch_changed();
                CREATE TRIGGER watches_changed_out AFTER DELETE ON watches
                    FOR EACH ROW EXECUTE FUNCTION kuroneko_watch_changed();
                """,
            nil
        ),
        (
            16,
            SchemaFills.noticesSQL(
                text: "text", real: "double precision", integer: "bigint", blob: "bytea",
                id: "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
            nil
        ),
        (
            17,
            SchemaFills.accountsSQL(
                text: "text", real: "double precision", integer: "bigint", blob: "bytea",
                id: "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY", now: Date().timeIntervalSince1970.rounded()),
            nil
        ),
        (18, SchemaFills.memberChannelsSQL(integer: "bigint", text: "text"), nil),
        (19, SchemaFills.ownerListsSQL(now: Date().timeIntervalSince1970.rounded()), nil),
        (20, SchemaFills.passkeysSQL(text: "text", real: "double precision", integer: "bigint", blob: "bytea"), nil),
        (21, SchemaFills.morningSummariesSQL(text: "text", integer: "bigint"), nil),
        (22, SchemaFills.usedChallengesSQL(real: "double precision", blob: "bytea"), nil),
    ]

    /// The trigram index that answers a search of a long list without reading it all (pg_trgm).
    static let trigramIndex = "watches_search_trigrams"

    /// Applies what is missing, on one connection holding the advisory lock; then, where the database lets
    /// it, the pg_trgm extension and a trigram index on the search text. - Returns: whether the index is there.
    @discardableResult
    static func migrate(_ database: PostgresDatabase, log: Logger?) throws -> Bool {
        let location = PostgresDatabase.redacted(database.url)
        return try database.withConnection { connection in
            try connection.execute("SELECT pg_advisory_lock(\(migrationLock))")
            defer { try? connection.execute("SELECT pg_advisory_unlock(\(migrationLock))") }
            try connection.execute("CREATE TABLE IF NOT EXISTS kuroneko_schema (version integer NOT NULL)")
            var current = try connection.run("SELECT MAX(version) FROM kuroneko_schema").first?.int(0) ?? 0
            try SchemaVersions.check(
                found: current, supported: migrations.map(\.version).max() ?? 0, location: location)
            let found = current
            if found == 0, let last = migrations.map(\.version).max() {
                SchemaVersions.announce(creating: location, version: last, on: log)
            }
            for migration in migrations where migration.version > current {
                if found > 0 {
                    SchemaVersions.announce(migrating: location, from: current, to: migration.version, on: log)
                }
                current = migration.version
                try connection.transaction {
                    try connection.execute(migration.sql)
                    try migration.fill?(connection)
                    try connection.execute("INSERT INTO kuroneko_schema (version) VALUES (\(migration.version))")
                }
            }
            return try trigramSearch(on: connection, location: location, log: log)
        }
    }

    /// Makes the trigram index when it is missing and the database allows it (pg_trgm is a trusted extension:
    /// the database's owner may create it); a role that may not is told once how the search stays correct,
    /// only slower on a long list, and what an administrator can run.
    private static func trigramSearch(
        on connection: PostgresConnection, location: String, log: Logger?
    ) throws -> Bool {
        let exists = "SELECT 1 FROM pg_indexes WHERE indexname = '\(trigramIndex)'"
        if try !connection.run(exists).isEmpty { return true }
        do {
            try connection.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            try connection.execute(
                "CREATE INDEX IF NOT EXISTS \(trigramIndex) ON watches USING gin (search_text gin_trgm_ops)")
            return true
        } catch {
            log?.warning(
                """
                searching a long watch list reads it whole: the trigram index could not be made; an administrator \
                can run CREATE EXTENSION pg_trgm in the database
                """,
                metadata: ["db": .string(location), "error": "\(error)"])
            return false
        }
    }
}

/// The watch store on PostgreSQL, for several servers sharing one watch list.
public typealias PostgresWatchStore = SQLWatchStore<PostgresDatabase>

extension SQLWatchStore where Database == PostgresDatabase {
    /// Connects to `url` (a libpq connection string or `postgres://` URL) and migrates.
    public convenience init(
        url: String, log: Logger? = nil,
        maxWatchesPerOwner: Int = WatchLimits.defaultWatchesPerOwner,
        unregisteredGrace: Double = WatchLimits.unregisteredGrace
    ) throws {
        self.init(
            database: try PostgresDatabase(url: url, log: log), maxWatchesPerOwner: maxWatchesPerOwner,
            unregisteredGrace: unregisteredGrace)
    }
}
