import Foundation
import KuronekoHTTP

// The tool's whole life: read the command line, run one command, exit with its code. The servers take
// SIGINT and SIGTERM on one queue; they are blocked here, before any other thread starts, so that every
// thread inherits the mask. A server also ignores SIGPIPE: a log reader that goes away must not kill it; so
// does `watch`, whose --exec command may leave without reading the change it is given.
let arguments = Array(CommandLine.arguments.dropFirst())
if let command = arguments.first, ["serve", "simulate"].contains(command) {
    TerminationSignals.block()
    signal(SIGPIPE, SIG_IGN)
}
if arguments.first == "watch" { signal(SIGPIPE, SIG_IGN) }
let terminal = Terminal(environment: ProcessInfo.processInfo.environment)
let status = await CommandLineTool(terminal: terminal).run(arguments)
exit(status.rawValue)
