import Foundation
import KuronekoTestSupport
import Testing

/// The completion scripts (swift-argument-parser's, from the commands' declared options) and the man page (from
/// its help data), as the shells and man(1) read them.
@Suite("completions and the man page", .timeLimit(.minutes(10)))
struct CompletionAndManTests {
    private static func installed(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs a shell command line with the binary's directory first on PATH.
    private static func shell(_ shell: String, _ script: String) async throws -> KuronekoBinary.Outcome {
        let directory = KuronekoBinary.url.deletingLastPathComponent().path
        return try await KuronekoBinary.run(
            ["-c", script], executable: URL(fileURLWithPath: shell),
            environment: ["PATH": directory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")])
    }

    @Test("bash: the script parses, registers, and completes commands, options and --lang values")
    func bash() async throws {
        let outcome = try await Self.shell(
            "/bin/bash",
            """
            source <(kuroneko completion bash) || exit 3
            complete -p kuroneko
            # As bash calls it: the words, the cursor, and the command, the word and the one before as arguments.
            c() {
                local label=$1; shift
                COMP_WORDS=(kuroneko "$@"); COMP_CWORD=$#; COMP_LINE="kuroneko $*"; COMP_POINT=${#COMP_LINE}
                COMPREPLY=()
                _kuroneko kuroneko "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
                echo "$label ${COMPREPLY[*]}"
            }
            c commands: tr; c options: track --la; c values: track --lang ''; c serve: serve --ttl
            c actions: keys ''
            """)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.isEmpty)
        #expect(
            outcome.standardOutput
                == "complete -o filenames -F _kuroneko kuroneko\ncommands: track\noptions: --lang\nvalues: ja en\n"
                + "serve: --ttl-terminal --ttl-active --ttl-invalid\nactions: create list revoke open\n")
        let syntax = try await Self.shell("/bin/bash", "bash -n <(kuroneko completion bash)")
        #expect(syntax.status == 0, "\(syntax.standardError)")
    }

    @Test(
        "zsh: the script loads under compinit and registers _kuroneko",
        .enabled(if: installed("/usr/bin/zsh"), "zsh is not installed (scripts/bootstrap --test installs it)"))
    func zsh() async throws {
        let outcome = try await Self.shell(
            "/usr/bin/zsh",
            "autoload -U compinit && compinit -u -D && source <(kuroneko completion zsh) && print -r -- $_comps[kuroneko]"
        )
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput == "_kuroneko\n")
        let syntax = try await Self.shell("/usr/bin/zsh", "kuroneko completion zsh | zsh -n")
        #expect(syntax.status == 0, "\(syntax.standardError)")
    }

    @Test(
        "fish: the script loads and completes commands and --lang values",
        .enabled(if: installed("/usr/bin/fish"), "fish is not installed (scripts/bootstrap --test installs it)"))
    func fish() async throws {
        let outcome = try await Self.shell(
            "/usr/bin/fish",
            "kuroneko completion fish | source; complete -C 'kuroneko tr'; complete -C 'kuroneko track --lang '")
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let lines = outcome.standardOutput.split(separator: "\n").map { $0.split(separator: "\t").first ?? "" }
        #expect(lines.first == "track")
        #expect(Set(lines.dropFirst()) == ["en", "ja"])
    }

    @Test("the committed docs/man/kuroneko.1 is what `kuroneko help --man` prints")
    func committedManPage() async throws {
        let generated = try await KuronekoBinary.run(["help", "--man"])
        #expect(generated.status == 0)
        let committed = try String(
            contentsOf: Fixtures.packageDirectory.appendingPathComponent("docs/man/kuroneko.1"), encoding: .utf8)
        #expect(generated.standardOutput == committed, "regenerate it: kuroneko help --man > docs/man/kuroneko.1")
    }

    @Test(
        "man renders the page without warnings, with every command and option",
        .enabled(if: installed("/usr/bin/man"), "man is not installed (scripts/bootstrap --test installs man-db)"))
    func manRenders() async throws {
        let page = Fixtures.packageDirectory.appendingPathComponent("docs/man/kuroneko.1").path
        let outcome = try await KuronekoBinary.run(
            ["--warnings", "-l", page], executable: URL(fileURLWithPath: "/usr/bin/man"),
            environment: ["MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100"])
        #expect(outcome.status == 0)
        #expect(outcome.standardError.isEmpty, "\(outcome.standardError)")
        for text in [
            "kuroneko track", "--skip-invalid", "--shutdown-timeout", "completion bash|zsh|fish", "EXIT STATUS",
        ] {
            #expect(outcome.standardOutput.contains(text), "\(text)")
        }
    }
}
