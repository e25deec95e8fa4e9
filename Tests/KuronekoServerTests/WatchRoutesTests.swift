import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoTestSupport
import Synchronization
import Testing

@testable import KuronekoStore
import KuronekoNotify
import KuronekoCrypto

/// `/v1/watches` in-process: adding, listing, paging, changes, keys and isolation, hostile bodies.
@Suite("API: watch lists", .timeLimit(.minutes(10)))
struct WatchRoutesTests {
    private static func json(_ response: HTTPResponse) async throws -> JSON { try JSON(data: response.body) }

    @Test("add answers at once (201, then 200), the first check fills in the shipment, pages and filters work")
    func addListPage() async throws {
        let harness = await Harness()
        let numbers = ValidNumbers.numbers(3)
        let first = await harness.send(
            "POST", "/v1/watches", json: #"{"number": "\#(numbers[0].formatted)", "label": "靴"}"#)
        #expect(first.status == 201, "\(String(decoding: first.body, as: UTF8.self))")
        await #expect(try Self.json(first)["label"] == .string("靴"))
        #expect(await harness.send("POST", "/v1/watches", json: #"{"number": "\#(numbers[0].digits)"}"#).status == 200)
        for number in numbers.dropFirst() {
            #expect(await harness.send("POST", "/v1/watches", json: #"{"number": "\#(number.digits)"}"#).status == 201)
        }
        let page = try await Self.json(await harness.get("/v1/watches?limit=2"))
        #expect(page["watches"]?.elements.count == 2)
        guard case .string(let cursor)? = page["next_cursor"] else {
            Issue.record("no next_cursor")
            return
        }
        let rest = try await Self.json(await harness.get("/v1/watches?limit=2&cursor=\(cursor)"))
        #expect(rest["watches"]?.elements.count == 1 && rest["next_cursor"] == .null)
        #expect(await harness.get("/v1/watches?status=finished").status == 200)
        #expect(await harness.get("/v1/watches?limit=0").status == 400)
        #expect(await harness.get("/v1/watches?cursor=abc").status == 400)
        #expect(await harness.get("/v1/watches?status=sideways").status == 400)
        #expect(await harness.send("DELETE", "/v1/watches/\(numbers[2].digits)").status == 204)
        #expect(await harness.get("/v1/watches/\(numbers[2].digits)").status == 404)
    }

    @Test(
        "hostile bodies: one clear 4xx each, nothing stored",
        arguments: [
            ("not json", "not a JSON object"), (#"[1, 2"#, "not a JSON array of watches"),
            (#"{"number": "3277-5445-9830", "evil": 1}"#, "unknown field \"evil\""),
            (#"{"number": 327754459830}"#, "number is missing or not a string"),
            (#"{"number": "1234-5678-9015"}"#, "check digit"),
            (#"{"number": "3277-5445-9830", "label": 5}"#, "label is not a string"),
            (#"{"number": "3277-5445-9830", "label": "a\u0007b"}"#, "control character (U+0007)"),
            (#"{"number": "3277-5445-9830", "webhook_url": "ftp://x.example/"}"#, "only http:// and https://"),
            (#"{"number": "3277-5445-9830", "webhook_url": "http://u:p@x.example/"}"#, "user name or password"),
        ])
    func hostile(body: String, detail: String) async throws {
        let harness = await Harness()
        let response = await harness.send("POST", "/v1/watches", json: body)
        #expect(response.status == 400)
        guard case .string(let text)? = try await Self.json(response)["detail"] else {
            Issue.record("no detail")
            return
        }
        #expect(text.contains(detail), "\(text)")
        await #expect(try harness.store.watches(owner: .local, filter: .all, after: nil, limit: 10).isEmpty)
    }

    @Test("a label over 200 characters is refused")
    func longLabel() async throws {
        let label = String(repeating: "あ", count: 201)
        let response = await Harness().send(
            "POST", "/v1/watches", json: #"{"number": "3277-5445-9830", "label": "\#(label)"}"#)
        #expect(response.status == 400)
    }

    @Test("with keys, every /v1 route needs one; each key sees only its own watches (another's is a 404)")
    func keysAndIsolation() async throws {
        let harness = await Harness()
        let now = Date()
        let shop = try await harness.store.createKey(
            name: "shop", keyHash: Secrets.sha256("kn_shop"), calendarHash: Secrets.sha256("cal_shop"), now: now)
        await harness.keysChanged()
        _ = try await harness.store.createKey(
            name: "home", keyHash: Secrets.sha256("kn_home"), calendarHash: Secrets.sha256("cal_home"), now: now)
        await harness.keysChanged()
        let number = ValidNumbers.numbers(1)[0]
        let anonymous = await harness.send("POST", "/v1/watches", json: #"{"number": "\#(number.digits)"}"#)
        #expect(anonymous.status == 401 && anonymous.header("WWW-Authenticate") == "Bearer")
        #expect(await harness.get("/v1/shipments/\(number.digits)").status == 401)
        for sneaky in ["//v1/watches", "/v1//watches", "///v1/shipments/\(number.digits)"] {
            #expect(await harness.get(sneaky).status == 401, "\(sneaky)")
        }
        #expect(await harness.get("/v1/watches", headers: ["Authorization": "Bearer kn_wrong"]).status == 401)
        #expect(await harness.get("/healthz").status == 200)
        #expect(await harness.get("/metrics").status == 200)
        let asShop = ["Authorization": "Bearer kn_shop"]
        let asHome = ["Authorization": "Bearer kn_home"]
        #expect(
            await harness.send(
                "POST", "/v1/watches", json: #"{"number": "\#(number.digits)", "label": "shop's"}"#, headers: asShop
            ).status == 201)
        #expect(await harness.get("/v1/watches/\(number.digits)", headers: asShop).status == 200)
        #expect(await harness.get("/v1/watches/\(number.digits)", headers: asHome).status == 404)
        #expect(await harness.send("DELETE", "/v1/watches/\(number.digits)", headers: asHome).status == 404)
        await #expect(try Self.json(await harness.get("/v1/watches", headers: asHome))["watches"]?.elements.isEmpty == true)
        #expect(
            await harness.send(
                "POST", "/v1/watches", json: #"{"number": "\#(number.digits)", "label": "mine"}"#, headers: asHome
            ).status == 201)
        await #expect(
            try Self.json(await harness.get("/v1/watches/\(number.digits)", headers: asShop))["label"]
                == .string("shop's"))
        #expect(await harness.get("/v1/calendar.ics?token=cal_shop").status == 200)
        #expect(await harness.get("/v1/calendar.ics?token=cal_nope").status == 401)
        _ = try await harness.store.revokeKey(String(shop.id), now: now)
        await harness.keysChanged()
        #expect(await harness.get("/v1/watches", headers: asShop).status == 401)
    }

    @Test("revoking the last key closes the API, never opens it; only keys open opens it, until a key is made again")
    func lastKeyRevoked() async throws {
        let harness = await Harness()
        let now = Date()
        #expect(await harness.get("/v1/watches").status == 200, "no key has ever existed: open")
        let only = try await harness.store.createKey(
            name: "only", keyHash: Secrets.sha256("kn_only"), calendarHash: Secrets.sha256("cal_only"), now: now)
        await harness.keysChanged()
        #expect(await harness.get("/v1/watches").status == 401)
        _ = try await harness.store.revokeKey(String(only.id), now: now.addingTimeInterval(1))
        await harness.keysChanged()
        let closed = await harness.get("/v1/watches")
        #expect(closed.status == 401)
        #expect(String(decoding: closed.body, as: UTF8.self).contains("kuroneko keys open"))
        #expect(await harness.get("/v1/watches", headers: ["Authorization": "Bearer kn_only"]).status == 401)
        try await harness.store.openWithoutKeys(at: now.addingTimeInterval(2))
        await harness.keysChanged()
        #expect(await harness.get("/v1/watches").status == 200, "opened by the operator")
        let again = try await harness.store.createKey(
            name: "again", keyHash: Secrets.sha256("kn_again"), calendarHash: Secrets.sha256("cal_again"), now: now)
        await harness.keysChanged()
        #expect(await harness.get("/v1/watches").status == 401)
        _ = try await harness.store.revokeKey(String(again.id), now: now.addingTimeInterval(3))
        await harness.keysChanged()
        #expect(await harness.get("/v1/watches").status == 401, "a later revocation closes it again")
    }

    @Test("a fresh fetch of a watched number, whoever asked, records it; a status change is logged once")
    func changesFromAnyFetch() async throws {
        // The first POST (the add's own check) finds the parcel accepted; every later one, in transit.
        let harness = await Harness { index, request in
            let numbers = FakeTrackingPage.numbers(inFormBody: request.body)
            let label = index == 0 ? "荷物受付" : "輸送中"
            return UpstreamResponse(
                status: 200, headers: ["Content-Type": "text/html; charset=UTF-8"],
                body: FakeTrackingPage.html(
                    blocks: numbers.map { .init(number: $0, state: label, rows: [.init(label, "11月28日 10:00")]) }))
        }
        let number = ValidNumbers.numbers(1)[0]
        #expect(await harness.send("POST", "/v1/watches", json: #"{"number": "\#(number.digits)"}"#).status == 201)
        await harness.transport.waitForCalls(1)
        #expect(await harness.send("POST", "/v1/watches/\(number.digits)/refresh").status == 200)
        #expect(await harness.send("POST", "/v1/watches/\(number.digits)/refresh").status == 200)
        let changes =
            try await Self.json(await harness.get("/v1/watches/\(number.digits)/changes"))["changes"]?.elements ?? []
        #expect(changes.count == 1)
        #expect(changes.first?["previous"]?["label"] == .string("荷物受付"))
        #expect(changes.first?["shipment"]?["status"]?["label"] == .string("輸送中"))
    }

    @Test("a refresh Yamato cannot answer is a 502 problem that says so; the watch keeps what it had")
    func refreshFailure() async throws {
        // The first POST (the add's own check, or the first refresh, which then shares it) succeeds; every
        // later one gets a 500 page.
        let harness = await Harness { index, request in
            guard index == 0 else { return UpstreamResponse(status: 500, headers: [:], body: Data("oops".utf8)) }
            let numbers = FakeTrackingPage.numbers(inFormBody: request.body)
            return UpstreamResponse(
                status: 200, headers: ["Content-Type": "text/html; charset=UTF-8"],
                body: FakeTrackingPage.html(
                    blocks: numbers.map { .init(number: $0, state: "輸送中", rows: [.init("輸送中", "11月28日 10:00")]) }
                ))
        }
        let number = ValidNumbers.numbers(1)[0]
        #expect(await harness.send("POST", "/v1/watches", json: #"{"number": "\#(number.digits)"}"#).status == 201)
        #expect(await harness.send("POST", "/v1/watches/\(number.digits)/refresh").status == 200)
        let before = await harness.get("/v1/watches/\(number.digits)")
        let refused = await harness.send("POST", "/v1/watches/\(number.digits)/refresh")
        #expect(refused.status == 502)
        #expect(refused.header("Content-Type") == "application/problem+json")
        guard case .string(let detail) = try await Self.json(refused)["detail"] else {
            Issue.record("no detail in the problem")
            return
        }
        #expect(detail.contains("500"))
        let after = await harness.get("/v1/watches/\(number.digits)")
        #expect(after.body == before.body)
    }

    @Test("past its limit (set to 10,000 here) one owner is answered 409, another owner is not")
    func limit() async throws {
        let harness = await Harness(maxWatchesPerOwner: 10_000)
        _ = try harness.store.database.writeNow { connection in
            for index in 0..<10_000 {
                try connection.run(
                    "INSERT INTO watches (owner, number, created_at, next_check_at) VALUES ('local', ?, 1, 1)",
                    [.text(String(format: "%012d", index))])
            }
        }
        let refused = await harness.send("POST", "/v1/watches", json: #"{"number": "3277-5445-9830"}"#)
        #expect(refused.status == 409)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("10000 watches"))
        #expect(try JSON(data: refused.body)["reason"] == .string("watch_limit"))
        let now = Date()
        _ = try await harness.store.createKey(
            name: "other", keyHash: Secrets.sha256("kn_other"), calendarHash: Secrets.sha256("c"), now: now)
        await harness.keysChanged()
        let other = await harness.send(
            "POST", "/v1/watches", json: #"{"number": "3277-5445-9830"}"#, headers: ["Authorization": "Bearer kn_other"]
        )
        #expect(other.status == 201)
    }
}
