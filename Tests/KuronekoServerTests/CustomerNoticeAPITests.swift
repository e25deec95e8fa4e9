import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoTestSupport
import Synchronization
import Testing

@testable import KuronekoServer
@testable import KuronekoStore

/// Customer notices through the API and the deliverer, in-process: hostile requests to every new route refused
/// by name; a notice retried after a 4xx and sent; a 5xx refusing it and stopping the address; the stop link
/// honoured at once; the rate holding back what is due; another key's parcel out of reach.
@Suite("API: customer notices", .timeLimit(.minutes(10)))
struct CustomerNoticeAPITests {
    /// A mail server whose answers are scripted per address: 250 unless told otherwise.
    final class ScriptedMail: MailSender {
        let sent = Mutex<[MailMessage]>([])
        let answers = Mutex<[String: [Int]]>([:])

        func send(_ message: MailMessage) async -> DeliveryOutcome {
            let status = answers.withLock { answers -> Int in
                guard var queue = answers[message.to.text], !queue.isEmpty else { return 250 }
                let next = queue.removeFirst()
                answers[message.to.text] = queue
                return next
            }
            guard status < 400 else { return DeliveryOutcome(status: status, error: "the server said \(status)") }
            sent.withLock { $0.append(message) }
            return DeliveryOutcome(status: status, error: nil)
        }
    }

    static func request(_ harness: Harness, _ method: String, _ target: String, _ body: String = "", headers: [String: String] = [:])
        async -> HTTPResponse
    {
        await harness.api.respond(
            to: HTTPRequest(
                method: method, target: target, headers: ["content-type": "application/json"].merging(headers) { $1 },
                body: Data(body.utf8)))
    }

    static func shipment(_ number: TrackingNumber, _ code: StatusCode, at: Date) -> Shipment {
        Shipment(
            trackingNumber: number, carrier: .yamato,
            status: ShipmentStatus(
                code: code, label: code == .outForDelivery ? "配達中" : "輸送中", labelEnglish: nil, summary: nil, note: nil,
                isTerminal: false),
            product: nil, scheduledDelivery: nil,
            events: [TrackingEvent(label: "輸送中", labelEnglish: nil, code: code, at: JapanDateTime(at), dateText: nil, place: "東京")],
            deliveredAt: nil)
    }

    @Test("every new route refuses hostile input by name, on a server that sends no mail")
    func hostile() async throws {
        let harness = await Harness()
        let cases: [(String, String, String, Int, String)] = [
            ("PUT", "/v1/notices/settings", "{", 400, "invalid_notice_settings"),
            ("PUT", "/v1/notices/settings", #"{"enabled": "yes"}"#, 400, "invalid_notice_settings"),
            ("PUT", "/v1/notices/settings", #"{"shop": {"name": "\u0007"}}"#, 400, "invalid_notice_settings"),
            ("PUT", "/v1/notices/settings", #"{"milestones": ["shipped", 3]}"#, 400, "invalid_notice_settings"),
            ("PUT", "/v1/notices/settings", #"{"extra": true}"#, 400, "invalid_notice_settings"),
            ("PUT", "/v1/notices/settings", #"{"templates": {"ja": {"body": "{{password}}"}}}"#, 400, "invalid_notice_settings"),
            ("PUT", "/v1/notices/settings", #"{"enabled": true, "shop": {"name": "a", "address": "b", "contact": "c"}}"#, 409, "notices_unavailable"),
            ("POST", "/v1/notices/preview", "[]", 400, "invalid_request"),
            ("POST", "/v1/notices/preview", #"{"number": "312345678901"}"#, 400, "invalid_request"),
            ("POST", "/v1/notices/preview", #"{"number": 3, "milestone": "shipped"}"#, 400, "invalid_request"),
            ("POST", "/v1/notices/preview", #"{"number": "312345678901", "milestone": "lost"}"#, 400, "invalid_request"),
            ("POST", "/v1/notices/preview", #"{"number": "312345678901", "milestone": "shipped", "x": 1}"#, 400, "invalid_request"),
            ("POST", "/v1/notices/preview", #"{"number": "nope", "milestone": "shipped"}"#, 400, "invalid_number"),
            ("POST", "/v1/notices/preview", #"{"number": "312345678901", "milestone": "shipped"}"#, 404, "not_watched"),
            ("GET", "/v1/notices/days?days=0", "", 400, "invalid_request"),
            ("GET", "/v1/notices/days?days=91", "", 400, "invalid_request"),
            ("GET", "/v1/notices/days?days=1e3", "", 400, "invalid_request"),
            ("GET", "/v1/watches/312345678901/notices", "", 404, "not_watched"),
        ]
        for (method, target, body, status, reason) in cases {
            let answer = await Self.request(harness, method, target, body)
            #expect(answer.status == status, "\(method) \(target) \(body): \(String(decoding: answer.body, as: UTF8.self))")
            #expect(try JSON(data: answer.body)["reason"]?.string == reason, "\(method) \(target) \(body)")
        }
        // Saved settings come back as they were; nothing half-saved by a refusal.
        let saved = await Self.request(
            harness, "PUT", "/v1/notices/settings", #"{"shop": {"name": "くろねこ雑貨店"}, "milestones": ["delivered"]}"#)
        #expect(saved.status == 200)
        let read = try JSON(data: await Self.request(harness, "GET", "/v1/notices/settings").body)
        #expect(read["shop"]?["name"]?.string == "くろねこ雑貨店" && read["can_send"] == .bool(false))
        #expect(read["milestones"]?.elements.compactMap(\.string) == ["delivered"])
        // The stop link: a made-up token is a page saying so, never a stop.
        for (method, target) in [("GET", "/notices/stop?t=s1.bG9jYWw.aa.bb"), ("POST", "/notices/stop?t=%00"), ("GET", "/notices/stop")] {
            let answer = await Self.request(harness, method, target)
            #expect(answer.status == 404, "\(method) \(target)")
        }
    }

    @Test("a 4xx is tried again, a 5xx refuses the address, the stop link ends what is queued, the rate holds back")
    func delivering() async throws {
        let mail = ScriptedMail()
        // The carrier is out of reach: the answers are the ones this test records.
        let harness = await Harness(answer: { _, _ in throw URLError(.cannotConnectToHost) }, mailSender: mail) {
            configuration in
            configuration.publicURL = URL(string: "https://parcels.example.jp")
            var smtp = SMTPSettings(url: URL(string: "smtp://127.0.0.1:9")!, from: try! MailAddress(parsing: "shop@example.jp"))
            smtp.startTLS = .optional
            configuration.smtp = smtp
        }
        let settings = #"{"enabled": true, "shop": {"name": "くろねこ雑貨店", "address": "東京都", "contact": "03-1234-5678"}}"#
        #expect(await Self.request(harness, "PUT", "/v1/notices/settings", settings).status == 200)
        let numbers = ValidNumbers.numbers(4)
        let addresses = ["retry@example.jp", "refuse@example.jp", "stop@example.jp", "fine@example.jp"]
        for (number, address) in zip(numbers, addresses) {
            let body = #"{"number": "\#(number.digits)", "record": {"recipient": {"name": "山田", "email": "\#(address)"}}}"#
            #expect(await Self.request(harness, "POST", "/v1/watches", body).status == 201)
        }
        mail.answers.withLock { $0 = ["retry@example.jp": [451], "refuse@example.jp": [550]] }
        let first = harness.clock.now
        for number in numbers {
            _ = try await harness.store.record(Self.shipment(number, .inTransit, at: first - 60), fetchedAt: first) { _, _ in
                first + 86_400
            }
        }
        let key = try await harness.store.setting("notice_stop_key", otherwise: "")
        let sending = CustomerNoticeMail(
            sender: mail, from: try MailAddress(parsing: "shop@example.jp"),
            publicURL: URL(string: "https://parcels.example.jp")!, stopKey: key)
        let deliverer = CustomerNoticeDeliverer(
            store: harness.store, mail: sending, clock: harness.clock, perSecond: 3, lease: 60)
        func round() async -> Int {
            let attempts = await deliverer.claimAttempts(limit: 16)
            for attempt in attempts { await attempt.run() }
            return attempts.count
        }
        // Three a second: the fourth waits for the next token.
        #expect(await round() == 3)
        #expect(await round() == 0)
        harness.clock.advance(by: .seconds(1))
        #expect(await round() == 1)
        #expect(deliverer.statistics == ["sent": 2, "retried": 1, "refused": 1])
        let refused = try JSON(data: await Self.request(harness, "GET", "/v1/watches/\(numbers[1].digits)/notices").body)
        #expect(refused["notices"]?.elements.first?["state"]?.string == "refused"
            && refused["notices"]?.elements.first?["status"]?.int == 550)

        // The recipient of "stop@" stops; the next milestone to it and to "refuse@" ends unsent, "fine@" gets it.
        let stopMessage = try #require(mail.sent.withLock { $0 }.first { $0.to.text == "stop@example.jp" })
        let link = try #require(stopMessage.extraHeaders.first { $0.name == "List-Unsubscribe" }?.value)
        let token = try #require(URLComponents(string: String(link.dropFirst().dropLast()))?.queryItems?.first?.value)
        let page = await Self.request(harness, "GET", "/notices/stop?t=\(token)")
        #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("method=\"post\""))
        let stopped = await harness.api.respond(
            to: HTTPRequest(
                method: "POST", target: "/notices/stop",
                headers: ["content-type": "application/x-www-form-urlencoded"],
                body: Data("List-Unsubscribe=One-Click&t=\(token)".utf8)))
        #expect(stopped.status == 200)
        let second = harness.clock.now
        for number in numbers {
            _ = try await harness.store.record(Self.shipment(number, .outForDelivery, at: second - 60), fetchedAt: second) {
                _, _ in second + 86_400
            }
        }
        harness.clock.advance(by: .seconds(5))
        var tried = 0
        for _ in 0..<4 { tried += await round() }
        let states = try await (0..<4).asyncMap { index in
            try await harness.store.customerNotices(
                watchID: try #require(await harness.store.watch(numbers[index], owner: .local)).id, owner: .local
            ).map(\.state)
        }
        #expect(states[1] == ["refused", "stopped"] && states[2] == ["sent", "stopped"] && states[3] == ["sent", "sent"])
        #expect(states[0] == ["pending", "pending"], "a retried notice holds back its parcel's next one")
        // The retry comes due; then the parcel's next one.
        harness.clock.advance(by: .seconds(600))
        for _ in 0..<3 { _ = await round() }
        let retried = try await harness.store.customerNotices(
            watchID: try #require(await harness.store.watch(numbers[0], owner: .local)).id, owner: .local)
        #expect(retried.map(\.state) == ["sent", "sent"] && retried[0].attempts == 2)
        #expect(mail.sent.withLock { $0 }.filter { $0.to.text == "stop@example.jp" }.count == 1)

        // Another key reads none of it.
        let other = try await harness.keys("other")[0]
        let hidden = await Self.request(harness, "GET", "/v1/watches/\(numbers[3].digits)/notices", headers: other)
        #expect(hidden.status == 404)
        let theirs = try JSON(data: await Self.request(harness, "GET", "/v1/notices/settings", headers: other).body)
        #expect(theirs["enabled"] == .bool(false) && theirs["shop"]?["name"]?.string == "")
    }
}

extension Range where Bound == Int {
    func asyncMap<T>(_ transform: (Int) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for index in self { out.append(try await transform(index)) }
        return out
    }
}
