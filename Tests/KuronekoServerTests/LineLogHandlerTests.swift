import Foundation
import KuronekoHTTP
import KuronekoServer
import Logging
import Synchronization
import Testing

@Suite("server log lines through swift-log")
struct LineLogHandlerTests {
    private func lines(_ format: LogFormat, events: Bool = false, _ body: (Logger) -> Void) -> [String] {
        let written = Mutex<[String]>([])
        let write: @Sendable (String) -> Void = { line in written.withLock { $0.append(line) } }
        body(
            events
                ? ServerLogging.events(format: format, sink: StringLogSink(write))
                : ServerLogging.notices(format: format, write: write))
        return written.withLock { $0 }
    }

    private func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("an event: text is the name, then its fields in the server's order; JSON has typed fields and null")
    func events() async throws {
        let retry: Logger.Metadata = [
            "result": "retry", "status": .stringConvertible(NoValue()), "attempt": .stringConvertible(2),
            "change": "c-12",
        ]
        #expect(lines(.text, events: true) { $0.info("webhook", metadata: retry) } == [
            "webhook change=c-12 attempt=2 status=- result=retry"
        ])
        #expect(lines(.text, events: true) { $0.info("shared", metadata: ["status": "delivered", "last4": "0042"]) } == [
            "shared last4=0042 status=delivered"
        ])
        let written = lines(.json, events: true) {
            $0.info("webhook", metadata: retry)
            $0.info("shared", metadata: ["status": "out_for_delivery", "last4": "0042"])
        }
        let line = try object(written[0])
        #expect(line["msg"] as? String == "webhook" && line["level"] as? String == "info")
        #expect(line["attempt"] as? Int == 2 && line["status"] is NSNull && line["result"] as? String == "retry")
        let shared = try object(written[1])
        #expect(shared["last4"] as? String == "0042" && shared["status"] as? String == "out_for_delivery")
    }

    @Test("a message of many words stays whole in JSON: no word becomes a field")
    func sentences() async throws {
        let sentence = "channel paused after failing for 24 hours: LINE answered 401 (token=bad)"
        let written = lines(.json, events: true) {
            $0.warning("\(sentence)", metadata: ["id": .stringConvertible(7), "kind": "line"])
            $0.info("shared listening: other servers' answers reach this one")
        }
        let paused = try object(written[0])
        #expect(paused["msg"] as? String == sentence && paused["level"] as? String == "warning")
        #expect(Set(paused.keys) == ["time", "level", "msg", "id", "kind"], "\(paused.keys)")
        let listening = try object(written[1])
        #expect(listening["msg"] as? String == "shared listening: other servers' answers reach this one")
        #expect(Set(listening.keys) == ["time", "level", "msg"])
    }

    @Test("a notice: text after kuroneko serve:, JSON-only fields left out of text; quotes, controls and non-ASCII survive")
    func notices() async throws {
        let fields: Logger.Metadata = [
            "db": "/tmp/\"a\"\\b\n\u{7}配達", "cache_size": .stringConvertible(10), "ttl_s": .stringConvertible(1.5),
            "web": .stringConvertible(false), "time": "a field may not replace the time",
            "url": .stringConvertible(JSONOnly("x")), "list": ["a", .stringConvertible(1)],
        ]
        #expect(
            lines(.text) { $0.info("listening on x", metadata: fields) } == [
                "kuroneko serve: listening on x cache_size=10 db=/tmp/\"a\"\\b\n\u{7}配達 list=[\"a\", \"1\"] "
                    + "time=a field may not replace the time ttl_s=1.5 web=false"
            ])
        let written = lines(.json) { $0.warning("listening on x", metadata: fields) }
        let line = try object(written[0])
        #expect(line["msg"] as? String == "listening on x" && line["level"] as? String == "warning")
        #expect(line["db"] as? String == "/tmp/\"a\"\\b\n\u{7}配達" && line["cache_size"] as? Int == 10)
        #expect(line["ttl_s"] as? Double == 1.5 && line["web"] as? Bool == false && line["url"] as? String == "x")
        #expect((line["list"] as? [Any])?.count == 2)
        #expect((line["time"] as? String)?.hasSuffix("Z") == true)
        #expect(!written[0].contains("\n"), "one line")
    }

    @Test("swift-log's levels map to the three JSON names")
    func levels() async throws {
        let written = lines(.json) { logger in
            var logger = logger
            logger.logLevel = .trace
            logger.critical("c")
            logger.notice("n")
            logger.debug("d")
        }
        #expect(try written.map { try object($0)["level"] as? String } == ["error", "info", "debug"])
    }
}
