import Foundation

/// Where output goes, and whether it may be coloured.
struct Terminal: Sendable {
    /// Colour only on a terminal, and never with `NO_COLOR` set (https://no-color.org).
    let usesColor: Bool

    init(environment: [String: String]) {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        usesColor = !noColor && isatty(STDOUT_FILENO) == 1
    }

    func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
