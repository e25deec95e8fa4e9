import Foundation

/// How the server writes its lines: `text`, the default, or one JSON object per line.
public enum LogFormat: String, Sendable, CaseIterable {
    case text, json
}

public enum LogLevel: String, Sendable {
    case info, warning, error
}

/// A field's value: JSON writes numbers and booleans as such, text writes every value as it prints.
public enum LogValue: Sendable, Equatable {
    case text(String)
    case number(Int)
    case decimal(Double)
    case flag(Bool)
    case none
}

/// The lines `kuroneko serve` writes besides the access log, in the chosen format.
///
/// A notice is a sentence for the operator (start-up, migrations, shutdown, errors): text
/// `kuroneko serve: listening on http://127.0.0.1:8080 upstream=… cache_size=10000`, JSON
/// `{"time":"2026-12-01T09:00:00.000Z","level":"info","msg":"listening on http://127.0.0.1:8080",
/// "upstream":"…","cache_size":10000}`. An event is a line the watch list writes in `name key=value …` form
/// (`webhook change=… attempt=2 status=204 result=delivered`): text as it is, JSON with `msg` the name and
/// each pair a field (``numericFields`` as numbers, `-` as null, the rest strings).
public struct ServerLog: Sendable {
    public let format: LogFormat
    private let write: @Sendable (String) -> Void

    /// Fields of event lines that JSON writes as numbers.
    public static let numericFields: Set<String> = ["status", "attempt"]

    public init(format: LogFormat, write: @escaping @Sendable (String) -> Void) {
        self.format = format
        self.write = write
    }

    /// A sentence for the operator; `jsonFields` are written in JSON only (the text already says them).
    public func notice(
        _ message: String, level: LogLevel = .info, _ fields: [(String, LogValue)] = [],
        jsonFields: [(String, LogValue)] = []
    ) {
        switch format {
        case .text:
            let pairs = fields.map { " \($0.0)=\(Self.text(of: $0.1))" }.joined()
            write("kuroneko serve: \(message)\(pairs)")
        case .json:
            write(Self.object(level: level, message: message, fields: fields + jsonFields))
        }
    }

    /// A `name key=value …` line of the watch list.
    public func event(_ line: String, level: LogLevel = .info) {
        switch format {
        case .text:
            write(line)
        case .json:
            var words = line.split(separator: " ", omittingEmptySubsequences: true)
            let name = words.isEmpty ? "" : String(words.removeFirst())
            let fields: [(String, LogValue)] = words.map { word in
                guard let equals = word.firstIndex(of: "=") else { return (String(word), .flag(true)) }
                let key = String(word[..<equals])
                let value = String(word[word.index(after: equals)...])
                if value == "-" { return (key, .none) }
                if Self.numericFields.contains(key), let number = Int(value) { return (key, .number(number)) }
                return (key, .text(value))
            }
            write(Self.object(level: level, message: name, fields: fields))
        }
    }

    static func text(of value: LogValue) -> String {
        switch value {
        case .text(let text): text
        case .number(let number): String(number)
        case .decimal(let number): String(number)
        case .flag(let flag): flag ? "true" : "false"
        case .none: "-"
        }
    }

    /// `{"time":…,"level":…,"msg":…,fields…}`; a field named like one of the first three is left out.
    static func object(level: LogLevel, message: String, fields: [(String, LogValue)]) -> String {
        var json = "{\"time\":\"\(LogTimestamps().now())\",\"level\":\"\(level.rawValue)\",\"msg\":"
        appendJSONString(message, to: &json)
        for (key, value) in fields where !["time", "level", "msg"].contains(key) {
            json += ","
            appendJSONString(key, to: &json)
            json += ":"
            switch value {
            case .text(let text): appendJSONString(text, to: &json)
            case .number(let number): json += String(number)
            case .decimal(let number): json += number.isFinite ? String(number) : "null"
            case .flag(let flag): json += flag ? "true" : "false"
            case .none: json += "null"
            }
        }
        return json + "}"
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
