import Foundation
import Logging

/// How the server writes its lines: `text`, the default, or one JSON object per line.
public enum LogFormat: String, Sendable, CaseIterable {
    case text, json
}

/// A field with no value: text writes `-`, JSON `null`.
public struct NoValue: CustomStringConvertible, Sendable {
    public init() {}
    public var description: String { "-" }
}

/// A field JSON writes and text leaves out, because the text's message already says it (the URL of
/// `listening on http://…`).
public struct JSONOnly: CustomStringConvertible, Sendable {
    public let value: Logger.MetadataValue
    public init(_ value: Logger.MetadataValue) { self.value = value }
    public var description: String { value.description }
}

/// swift-log's handler for the lines `kuroneko serve` writes besides the access log: one line per message,
/// in the chosen format, handed to `write` (standard error, or the buffered log writer).
///
/// Text: `prefix` (`kuroneko serve: ` for the operator's notices, nothing for the watch list's events), the
/// message whole, then ` key=value` for each field: those named in `fieldOrder` first, in its order, the rest
/// by name. JSON: `{"time":…,"level":…,"msg":…,fields…}`, the message whole in `msg`; integers, decimals and
/// booleans given as such (`.stringConvertible(42)`) are written as JSON numbers and booleans, ``NoValue`` as
/// `null`, arrays and dictionaries as JSON's; a field named `time`, `level` or `msg` is left out.
public struct LineLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public let format: LogFormat
    private let prefix: String
    private let fieldOrder: [String: Int]
    private let write: @Sendable (String) -> Void

    public init(
        format: LogFormat, prefix: String = "", fieldOrder: [String] = [], write: @escaping @Sendable (String) -> Void
    ) {
        self.format = format
        self.prefix = prefix
        self.fieldOrder = Dictionary(fieldOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let more = event.metadata { fields.merge(more) { $1 } }
        let ordered = fields.sorted { left, right in
            let leftRank = fieldOrder[left.key] ?? Int.max
            let rightRank = fieldOrder[right.key] ?? Int.max
            return leftRank != rightRank ? leftRank < rightRank : left.key < right.key
        }
        write(line(level: event.level, message: event.message.description, fields: ordered))
    }

    /// The line for one message, fields in the order given.
    public func line(level: Logger.Level, message: String, fields: [(key: String, value: Logger.MetadataValue)])
        -> String
    {
        switch format {
        case .text:
            var text = prefix + message
            for (key, value) in fields {
                if case .stringConvertible(let convertible) = value, convertible is JSONOnly { continue }
                text += " \(key)=\(value)"
            }
            return text
        case .json:
            return Self.object(level: level, message: message, fields: fields)
        }
    }

    /// `{"time":…,"level":…,"msg":…,fields…}` (the levels JSON names: debug, info, warning, error).
    public static func object(
        level: Logger.Level, message: String, fields: [(key: String, value: Logger.MetadataValue)]
    ) -> String {
        var json = "{\"time\":\"\(LogTimestamps().now())\",\"level\":\"\(name(of: level))\",\"msg\":"
        appendJSONString(message, to: &json)
        for (key, value) in fields where !["time", "level", "msg"].contains(key) {
            json += ","
            appendJSONString(key, to: &json)
            json += ":"
            append(value, to: &json)
        }
        return json + "}"
    }

    static func name(of level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "debug"
        case .info, .notice: "info"
        case .warning: "warning"
        case .error, .critical: "error"
        }
    }

    private static func append(_ value: Logger.MetadataValue, to json: inout String) {
        switch value {
        case .string(let text): appendJSONString(text, to: &json)
        case .stringConvertible(let convertible):
            switch convertible {
            case let only as JSONOnly: append(only.value, to: &json)
            case is NoValue: json += "null"
            case let flag as Bool: json += flag ? "true" : "false"
            case let number as any BinaryInteger: json += "\(number)"
            case let number as Double: json += number.isFinite ? "\(number)" : "null"
            default: appendJSONString(convertible.description, to: &json)
            }
        case .array(let values):
            json += "["
            for (index, element) in values.enumerated() {
                if index > 0 { json += "," }
                append(element, to: &json)
            }
            json += "]"
        case .dictionary(let values):
            json += "{"
            for (index, (key, element)) in values.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { json += "," }
                appendJSONString(key, to: &json)
                json += ":"
                append(element, to: &json)
            }
            json += "}"
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped, everything else as it is.
    static func appendJSONString(_ text: String, to json: inout String) {
        json += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029:
                json += String(format: "\\u%04x", scalar.value)
            default: json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
    }
}

extension Logger {
    /// A logger whose lines are written by a ``LineLogHandler`` (what the server and the tests build; the
    /// process-wide `LoggingSystem` is left to the app).
    public static func lines(
        _ label: String, format: LogFormat, prefix: String = "", fieldOrder: [String] = [],
        write: @escaping @Sendable (String) -> Void
    ) -> Logger {
        Logger(label: label) { _ in
            LineLogHandler(format: format, prefix: prefix, fieldOrder: fieldOrder, write: write)
        }
    }

    /// A logger that writes nothing (tests that do not read the log).
    public static let silent = Logger(label: "kuroneko.silent") { _ in SwiftLogNoOpLogHandler() }
}
