import Foundation

// The tool's whole life: read the command line, run one command, exit with its code.
let terminal = Terminal(environment: ProcessInfo.processInfo.environment)
let status = await CommandLineTool(terminal: terminal).run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
