import KuronekoHTTP
import Logging

/// The server's two loggers besides the access log: the operator's notices (start-up, migrations, the drain,
/// failures; text lines begin `kuroneko serve: `) and the watch list's events (each delivery attempt, what
/// other servers found; text lines begin with the event's name). Values travel as metadata, never inside
/// the message.
public enum ServerLogging {
    /// The order text lines give their fields in (JSON's order does not matter); others follow by name.
    public static let fieldOrder = [
        "operation", "error", "request", "route", "action", "number", "kept_to_retry",
        "id", "change", "last4", "kind", "announcement", "milestone", "digest", "left", "cost", "attempt", "status",
        "result",
        "upstream", "timeout_s", "max_concurrent", "min_interval_s", "cache_size", "ttl_terminal_s", "ttl_active_s",
        "ttl_invalid_s", "batch_window_ms", "queue_deadline_s", "queue_capacity", "breaker_failures",
        "breaker_cool_down_s", "connections_per_client", "max_connections", "receive_timeout_s", "cors_origins",
        "shutdown_timeout_s", "db", "poll_speed", "allow_private_webhooks", "require_api_key", "web_app", "log_format",
        "smtp", "smtp_starttls", "smtp_auth",
        "mailbox", "carrier", "messages", "uid", "uids", "watched", "from", "to", "schema_version", "summary",
        "subject", "reason", "problem", "bytes", "masked", "operator_told", "parcels",
    ]

    /// The operator's lines, in `format`, to `write`.
    public static func notices(format: LogFormat, write: @escaping @Sendable (String) -> Void) -> Logger {
        .lines("kuroneko.serve", format: format, prefix: "kuroneko serve: ", fieldOrder: fieldOrder, write: write)
    }

    /// The watch list's event lines, in `format`, to the log sink (beside the access log).
    public static func events(format: LogFormat, sink: any LogSink) -> Logger {
        events(format: format) { line in
            var line = line
            line.withUTF8 { sink.write(line: UnsafeRawBufferPointer($0)) }
        }
    }

    /// The watch list's event lines, in `format`, to `write`.
    public static func events(format: LogFormat, write: @escaping @Sendable (String) -> Void) -> Logger {
        .lines("kuroneko.events", format: format, fieldOrder: fieldOrder, write: write)
    }
}

/// Fields the event lines share.
enum EventFields {
    /// A receiver's HTTP status, or none when no answer came (text `-`, JSON `null`).
    static func status(_ status: Int?) -> Logger.MetadataValue {
        status.map { .stringConvertible($0) } ?? .stringConvertible(NoValue())
    }
}
