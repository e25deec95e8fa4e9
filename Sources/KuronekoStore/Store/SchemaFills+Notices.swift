extension SchemaFills {
    /// Migration 16 on either engine: each owner's customer-notice settings, the notices queued for parcels'
    /// recipients (one per parcel and milestone; the log kept when the parcel is removed), and the addresses
    /// that asked for no more (by hash).
    public static func noticesSQL(text: String, real: String, integer: String, blob: String, id: String) -> String {
        """
        CREATE TABLE notice_settings (
            owner \(text) PRIMARY KEY,
            json \(blob) NOT NULL,
            updated_at \(real) NOT NULL
        );
        CREATE TABLE customer_notices (
            id \(id),
            watch_id \(integer) REFERENCES watches (id) ON DELETE SET NULL,
            owner \(text) NOT NULL,
            number \(text) NOT NULL,
            milestone \(text) NOT NULL,
            address \(text) NOT NULL,
            recipient_name \(text),
            reference \(text),
            shipment_json \(blob) NOT NULL,
            state \(text) NOT NULL DEFAULT 'pending',
            attempts \(integer) NOT NULL DEFAULT 0,
            created_at \(real) NOT NULL,
            next_attempt_at \(real) NOT NULL,
            finished_at \(real),
            status \(integer),
            error \(text),
            UNIQUE (watch_id, milestone)
        );
        CREATE INDEX customer_notices_due ON customer_notices (state, next_attempt_at);
        CREATE INDEX customer_notices_owner ON customer_notices (owner, created_at);
        CREATE TABLE notice_stops (
            owner \(text) NOT NULL,
            address_hash \(text) NOT NULL,
            reason \(text) NOT NULL,
            at \(real) NOT NULL,
            PRIMARY KEY (owner, address_hash)
        );
        """
    }
}
