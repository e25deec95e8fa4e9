import Foundation
import Kuroneko
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Synchronization
import Testing

/// E-mail channels: addresses checked, refused where the server sends no mail, the message's shape, and the
/// deliverer handing a change to the mail sender (the SMTP exchange itself is tried against aiosmtpd by
/// Tests/TLS/check_channels.py).
@Suite("E-mail channels", .timeLimit(.minutes(10)))
struct MailChannelTests {
    final class FakeMail: MailSender {
        let sent = Mutex<[MailMessage]>([])
        func send(_ message: MailMessage) async -> DeliveryOutcome {
            sent.withLock { $0.append(message) }
            return DeliveryOutcome(status: 250, error: nil)
        }
    }

    @Test(
        "hostile addresses are refused by name",
        arguments: [
            ("", "is not one address"), ("no-at-sign", "is not one address"), ("a@b@c", "is not one address"),
            ("\"quoted\"@example.jp", "part before @"), ("a b@example.jp", "part before @"),
            (".dot@example.jp", "part before @"), ("line\r\nBcc: x@y@example.jp", "is not one address"),
            ("me@exa mple.jp", "domain"), ("me@-example.jp", "domain"), ("me@example..jp", "domain"),
            (String(repeating: "a", count: 250) + "@example.jp", "at most 254"),
        ])
    func hostileAddresses(address: String, detail: String) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["kind": "email", "address": address])
        #expect(throws: ChannelRequestError.self) { try AddChannelRequest.parse(body) }
        do {
            _ = try AddChannelRequest.parse(body)
        } catch {
            #expect(error.message.contains(detail), "\(address): \(error.message)")
        }
    }

    @Test("an email channel takes an address only; a server without --smtp-url refuses it")
    func shapes() async throws {
        let good = try AddChannelRequest.parse(Data(#"{"kind": "email", "address": "ichiro@example.jp"}"#.utf8))
        #expect(good.destinationURL == nil)
        for body in [
            #"{"kind": "email", "url": "https://example.jp"}"#, #"{"kind": "ntfy", "address": "a@example.jp"}"#,
            #"{"kind": "email"}"#, #"{"kind": "email", "address": 7}"#,
        ] {
            #expect(throws: ChannelRequestError.self, "\(body)") { try AddChannelRequest.parse(Data(body.utf8)) }
        }
        let harness = await Harness()
        let answer = await harness.send("POST", "/v1/channels", json: #"{"kind": "email", "address": "a@example.jp"}"#)
        #expect(answer.status == 400)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("sends no e-mail"))
    }

    @Test("a change goes to the mail sender as a message in the channel's language, in order")
    func delivered() async throws {
        let harness = await Harness()
        let request = try AddChannelRequest.parse(
            Data(#"{"kind": "email", "address": "ichiro@example.jp", "lang": "ja"}"#.utf8))
        _ = try await harness.store.addChannel(request.channel, owner: .local, now: harness.clock.now)
        let number = try TrackingNumber(parsing: "3277-5445-9830")
        let start = harness.clock.now.addingTimeInterval(-600)
        _ = try await harness.store.add(number, label: "冬のコート", owner: .local, webhook: nil, now: start)
        for (offset, (code, label)) in [(StatusCode.inTransit, "輸送中"), (.delivered, "配達完了")].enumerated() {
            let at = start.addingTimeInterval(Double(offset + 1) * 60)
            let shipment = Shipment(
                trackingNumber: number,
                status: ShipmentStatus(
                    code: code, label: label, labelEnglish: nil, summary: nil, note: nil, isTerminal: code == .delivered
                ),
                product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
            _ = try await harness.store.record(shipment, fetchedAt: at) { _, _ in at }
        }
        let mail = FakeMail()
        let unused = ChannelTests.FakeService([])
        let deliverer = ChannelDeliverer(
            store: harness.store, sender: unused,
            mail: .init(sender: mail, from: try MailAddress(parsing: "kuroneko@example.jp")), clock: harness.clock,
            vapid: nil, publicURL: URL(string: "https://parcels.example.jp"))
        #expect(await deliverer.deliverOnce() == 1)
        let message = try #require(mail.sent.withLock { $0.first })
        #expect(message.to.text == "ichiro@example.jp")
        #expect(message.subject == "お届け済み: 冬のコート (3277-5445-9830)")
        #expect(message.text.contains("https://parcels.example.jp/parcel/327754459830"))
        #expect(unused.requests.withLock { $0.isEmpty })
        let records = try await #require(try harness.store.channelDeliveries(of: 1, owner: .local))
        #expect(records.first?.state == "delivered")
        // Without an SMTP server the attempt fails, saying why, and is retried later.
        _ = try await harness.store.announce(
            .changed, watch: try #require(try harness.store.watch(number, owner: .local)),
            shipment: try #require(try harness.store.watch(number, owner: .local)?.latest?.json), at: harness.clock.now)
        let noMail = ChannelDeliverer(
            store: harness.store, sender: unused, clock: harness.clock, vapid: nil, publicURL: nil)
        #expect(await noMail.deliverOnce() == 1)
        let failed = try await #require(try harness.store.channelDeliveries(of: 1, owner: .local)).first {
            $0.state != "delivered"
        }
        #expect(failed?.error?.contains("no --smtp-url") == true)
    }

    @Test("the message: CRLF lines of at most 78 characters, the subject in encoded words, two UTF-8 parts")
    func rendered() async throws {
        let message = MailMessage(
            from: try MailAddress(parsing: "kuroneko@example.jp"), to: try MailAddress(parsing: "a@example.jp"),
            subject: "お届け済み: とても長い名前の荷物でございますがどうぞよろしくお願いいたします (3277-5445-9830)",
            text: "配達完了 · 渋谷センター\n", html: "<p>配達完了 &amp; more</p>", date: Date(timeIntervalSince1970: 1_800_000_000),
            messageID: "<fixed@kuroneko>")
        let text = String(decoding: message.rendered, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 78 }, "\(lines.map(\.utf8.count).max() ?? 0)")
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(text.contains("Date: Fri, 15 Jan 2027 17:00:00 +0900"))
        let subject = lines.drop { !$0.hasPrefix("Subject:") }.prefix { $0.hasPrefix("Subject:") || $0.hasPrefix(" ") }
        let decoded = subject.joined().matches(of: /=\?UTF-8\?B\?([A-Za-z0-9+\/=]+)\?=/).compactMap {
            Data(base64Encoded: String($0.1)).map { String(decoding: $0, as: UTF8.self) }
        }.joined()
        #expect(decoded == message.subject)
        #expect(text.contains("Content-Type: text/plain; charset=UTF-8"))
        #expect(text.contains("Content-Type: text/html; charset=UTF-8"))
        #expect(text.hasSuffix("--\r\n"))
    }
}
