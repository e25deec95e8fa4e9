import Foundation
import KuronekoHTTP
import Synchronization
import Testing

@Suite("server log lines")
struct ServerLogTests {
    private func lines(_ format: LogFormat, _ body: (ServerLog) -> Void) -> [String] {
        let written = Mutex<[String]>([])
        body(ServerLog(format: format) { line in written.withLock { $0.append(line) } })
        return written.withLock { $0 }
    }

    private func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("an event line: text as written; JSON with msg the name, status and attempt as numbers, - as null")
    func events() async throws {
        let line = "webhook change=c-12 attempt=2 status=- result=retry"
        #expect(lines(.text) { $0.event(line) } == [line])
        let written = lines(.json) {
            $0.event(line)
            $0.event("webhook change=c-13 attempt=1 status=204 result=delivered")
            $0.event("shared last4=0042 status=out_for_delivery")
        }
        let retry = try object(written[0])
        #expect(retry["msg"] as? String == "webhook" && retry["level"] as? String == "info")
        #expect(retry["attempt"] as? Int == 2 && retry["status"] is NSNull && retry["result"] as? String == "retry")
        #expect(try object(written[1])["status"] as? Int == 204)
        let shared = try object(written[2])
        #expect(shared["last4"] as? String == "0042" && shared["status"] as? String == "out_for_delivery")
    }

    @Test("a notice: text after kuroneko serve:, JSON with typed fields; quotes, controls and non-ASCII survive")
    func notices() async throws {
        let fields: [(String, LogValue)] = [
            ("db", .text("/tmp/\"a\"\\b\n\u{7}配達")), ("cache_size", .number(10)), ("ttl_s", .decimal(1.5)),
            ("web", .flag(false)), ("time", .text("a field may not replace the time")),
        ]
        #expect(
            lines(.text) { $0.notice("listening on x", fields, jsonFields: [("url", .text("x"))]) } == [
                "kuroneko serve: listening on x db=/tmp/\"a\"\\b\n\u{7}配達 cache_size=10 ttl_s=1.5 web=false "
                    + "time=a field may not replace the time"
            ])
        let written = lines(.json) { $0.notice("listening on x", level: .warning, fields, jsonFields: [("url", .text("x"))]) }
        let line = try object(written[0])
        #expect(line["msg"] as? String == "listening on x" && line["level"] as? String == "warning")
        #expect(line["db"] as? String == "/tmp/\"a\"\\b\n\u{7}配達" && line["cache_size"] as? Int == 10)
        #expect(line["ttl_s"] as? Double == 1.5 && line["web"] as? Bool == false && line["url"] as? String == "x")
        #expect((line["time"] as? String)?.hasSuffix("Z") == true)
        #expect(!written[0].contains("\n"), "one line")
    }
}
