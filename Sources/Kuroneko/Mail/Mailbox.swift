import Foundation

/// A file of mail: one message (`.eml`), or an mbox of many, each starting with a `From ` line (mboxrd: body
/// lines quoted as `>From ` are unquoted).
public enum Mailbox {
    /// The most messages one file is split into.
    public static let maximumMessages = 100_000

    /// The first message of a file: the file itself unless it is an mbox.
    public static func firstMessage(in file: Data) -> Data {
        guard file.starts(with: Data("From ".utf8)) else { return file }
        return messages(in: file, limit: 1).first ?? Data()
    }

    /// Each message's bytes; an mbox is known by its first line.
    public static func messages(in file: Data, limit: Int = maximumMessages) -> [Data] {
        split(file, limit: limit).messages
    }

    /// Each message's bytes, at most `limit`; `more` when the file holds more messages than that.
    public static func split(_ file: Data, limit: Int = maximumMessages) -> (messages: [Data], more: Bool) {
        guard file.starts(with: Data("From ".utf8)) else { return (file.isEmpty ? [] : [file], false) }
        var messages: [Data] = []
        var current = Data()
        var started = false
        var previousBlank = true
        var lineStart = file.startIndex
        while lineStart < file.endIndex, messages.count < limit {
            let lineEnd = file[lineStart...].firstIndex(of: 0x0A).map { $0 + 1 } ?? file.endIndex
            let line = file[lineStart..<lineEnd]
            if previousBlank, line.starts(with: Data("From ".utf8)) {
                if started { messages.append(current) }
                current = Data()
                started = true
            } else if started {
                let unquoted = line.drop { $0 == 0x3E }
                if unquoted.count < line.count, unquoted.starts(with: Data("From ".utf8)) {
                    current.append(line.dropFirst())
                } else {
                    current.append(line)
                }
            }
            previousBlank = line.allSatisfy { $0 == 0x0A || $0 == 0x0D }
            lineStart = lineEnd
        }
        // The loop stops early only when the limit is reached at the start of one more message.
        let more = messages.count >= limit
        if started, messages.count < limit { messages.append(current) }
        return (messages, more)
    }
}
