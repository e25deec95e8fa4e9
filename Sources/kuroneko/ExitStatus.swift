/// The tool's exit codes, documented in the README.
enum ExitStatus: Int32 {
    case success = 0
    /// The upstream failed or answered a page that cannot be read.
    case lookupFailed = 1
    /// The command line or the tracking numbers were wrong; nothing was sent.
    case usage = 2
}

/// A failure that ends the command with a one-line message.
struct CommandFailure: Error, Equatable {
    let status: ExitStatus
    let message: String

    static func usage(_ message: String) -> CommandFailure {
        CommandFailure(status: .usage, message: message)
    }

    static func lookup(_ message: String) -> CommandFailure {
        CommandFailure(status: .lookupFailed, message: message)
    }

    /// The command already said what went wrong (one line per problem); only the exit status is left.
    static func reported(_ status: ExitStatus) -> CommandFailure {
        CommandFailure(status: status, message: "")
    }
}
