import Foundation
import KuronekoHTTP
import KuronekoServer
import Logging

/// Where output goes, and what kind of place that is.
struct Terminal: Sendable {
    let environment: [String: String]
    /// Standard output is a terminal.
    let outputIsTerminal: Bool
    /// Standard error is a terminal: progress may be drawn there.
    let errorIsTerminal: Bool
    /// Standard input is a terminal: nobody piped numbers in.
    let inputIsTerminal: Bool

    init(environment: [String: String]) {
        self.environment = environment
        outputIsTerminal = isatty(STDOUT_FILENO) == 1
        errorIsTerminal = isatty(STDERR_FILENO) == 1
        inputIsTerminal = isatty(STDIN_FILENO) == 1
    }

    /// Colour only on a terminal that can show it: never with `NO_COLOR` set (https://no-color.org), with
    /// `TERM=dumb`, or when the command was given `--no-color`.
    func usesColor(unlessTurnedOff turnedOff: Bool) -> Bool {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return !turnedOff && !noColor && environment["TERM"] != "dumb" && outputIsTerminal
    }

    /// How many columns the output may take: `COLUMNS` when set, else the terminal's width, else `nil` (a
    /// file or a pipe, where nothing is cut).
    var columns: Int? {
        if let text = environment["COLUMNS"], let value = Int(text), value >= 20 { return value }
        guard outputIsTerminal else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 20 else { return nil }
        return Int(size.ws_col)
    }

    func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Bytes to standard output as they are.
    func write(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes to standard error as it is, without a newline (progress lines).
    func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

extension Terminal {
    /// What the libraries say to the person running a command (a database created or migrated): text lines
    /// on standard error, `kuroneko: ` first, values as fields.
    var notices: Logger {
        Logger.lines("kuroneko", format: .text, prefix: "kuroneko: ", fieldOrder: ServerLogging.fieldOrder) { line in
            printError(line)
        }
    }
}
