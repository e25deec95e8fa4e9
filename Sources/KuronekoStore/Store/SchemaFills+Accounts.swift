extension SchemaFills {
    /// Migration 17 on either engine: people (accounts), lists with members and roles, signed-in sessions (stored
    /// hashed), invitations (single use, expiring, stored hashed), each list's audit log, and a key's list and
    /// role. The watch list that exists is the list `local` (every watch, channel and mailbox of the local owner
    /// is in it already, by its owner); the first account made becomes its admin.
    public static func accountsSQL(text: String, real: String, integer: String, blob: String, id: String, now: Double)
        -> String
    {
        """
        CREATE TABLE lists (
            id \(text) PRIMARY KEY,
            name \(text) NOT NULL,
            created_at \(real) NOT NULL
        );
        INSERT INTO lists (id, name, created_at) VALUES ('local', 'Kuroneko', \(now));
        CREATE TABLE users (
            id \(id),
            name \(text) NOT NULL UNIQUE,
            display_name \(text) NOT NULL,
            password_hash \(text),
            created_at \(real) NOT NULL,
            removed_at \(real)
        );
        CREATE TABLE members (
            list_id \(text) NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
            user_id \(integer) NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            role \(text) NOT NULL,
            added_at \(real) NOT NULL,
            PRIMARY KEY (list_id, user_id)
        );
        CREATE INDEX members_user ON members (user_id);
        CREATE TABLE sessions (
            token_hash \(blob) PRIMARY KEY,
            user_id \(integer) NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            list_id \(text) NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
            csrf \(text) NOT NULL,
            created_at \(real) NOT NULL,
            last_used_at \(real) NOT NULL
        );
        CREATE INDEX sessions_user ON sessions (user_id);
        CREATE TABLE invitations (
            token_hash \(blob) PRIMARY KEY,
            list_id \(text) NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
            role \(text) NOT NULL,
            made_by \(integer),
            created_at \(real) NOT NULL,
            expires_at \(real) NOT NULL,
            used_at \(real),
            used_by \(integer)
        );
        CREATE TABLE audit_log (
            id \(id),
            list_id \(text) NOT NULL,
            at \(real) NOT NULL,
            actor \(text) NOT NULL,
            action \(text) NOT NULL,
            detail \(text) NOT NULL
        );
        CREATE INDEX audit_log_list ON audit_log (list_id, at);
        ALTER TABLE api_keys ADD COLUMN list_id \(text);
        ALTER TABLE api_keys ADD COLUMN role \(text);
        ALTER TABLE api_keys ADD COLUMN made_by \(integer);
        """
    }

    /// Migration 18 on either engine: a channel may be one member's own (their phone, their quiet hours and
    /// events), named by the member's device; a channel without a member is the whole list's, as before.
    public static func memberChannelsSQL(integer: String, text: String) -> String {
        """
        ALTER TABLE channels ADD COLUMN member_id \(integer);
        ALTER TABLE channels ADD COLUMN device \(text);
        """
    }

    /// Migration 19 on either engine: every list that exists in the data becomes a list people can be members of.
    /// A key made on the command line has always been a list of its own (its parcels, channels and settings under
    /// `key:ID`): each becomes the list `key:ID`, named by its key, as does any other owner found on a watch, a
    /// channel or a setting; the admins of today's list (the first account, on a database that has one) become
    /// admins of each, so nothing a key's holder sees is out of the first account's reach.
    public static func ownerListsSQL(now: Double) -> String {
        let owners = [
            "watches", "channels", "notice_settings", "customer_notices", "notice_stops",
        ].map { "SELECT DISTINCT owner FROM \($0)" }.joined(separator: " UNION ")
        return """
            INSERT INTO lists (id, name, created_at)
            SELECT 'key:' || CAST(id AS TEXT), name, created_at FROM api_keys WHERE list_id IS NULL
            ON CONFLICT (id) DO NOTHING;
            INSERT INTO lists (id, name, created_at)
            SELECT owner, owner, \(now) FROM (\(owners)) AS owners WHERE owner NOT IN (SELECT id FROM lists)
            ON CONFLICT (id) DO NOTHING;
            INSERT INTO members (list_id, user_id, role, added_at)
            SELECT lists.id, members.user_id, 'admin', \(now) FROM lists, members
            WHERE members.list_id = 'local' AND members.role = 'admin' AND lists.id <> 'local'
            ON CONFLICT (list_id, user_id) DO NOTHING;
            """
    }

    /// Migration 20 on either engine: each person's passkeys (WebAuthn): the credential's id, its public key (an
    /// uncompressed P-256 point), its signature counter, the name the person gave it, when made and last used.
    public static func passkeysSQL(text: String, real: String, integer: String, blob: String) -> String {
        """
        CREATE TABLE passkeys (
            credential_id \(blob) PRIMARY KEY,
            user_id \(integer) NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            public_key \(blob) NOT NULL,
            sign_count \(integer) NOT NULL,
            name \(text) NOT NULL,
            created_at \(real) NOT NULL,
            last_used_at \(real)
        );
        CREATE INDEX passkeys_user ON passkeys (user_id);
        """
    }

    /// Migration 21 on either engine: the channels that hear the morning summary, the minute of the day (Japan
    /// time) each wants it at, and the last day one was made for it (so it is made once a day, on any server).
    public static func morningSummariesSQL(text: String, integer: String) -> String {
        """
        CREATE TABLE morning_summaries (
            channel_id \(integer) PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
            minute \(integer) NOT NULL,
            last_day \(text)
        );
        """
    }

    /// Migration 22 on either engine: the passkey challenges already answered, by their SHA-256, until they expire,
    /// so that one answer (a captured sign-in) is taken once on any server of the database.
    public static func usedChallengesSQL(real: String, blob: String) -> String {
        """
        CREATE TABLE used_challenges (
            challenge_hash \(blob) PRIMARY KEY,
            expires_at \(real) NOT NULL
        );
        CREATE INDEX used_challenges_expiry ON used_challenges (expires_at);
        """
    }
}
