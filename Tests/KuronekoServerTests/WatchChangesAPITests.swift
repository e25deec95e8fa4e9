import Foundation
import Kuroneko
import KuronekoHTTP
@testable import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Testing

/// `GET /v1/watches/changes`: a page that holds the list follows it by cursor. An add, a new answer and a
/// removal come with the counts; a check finding the same answer is no change; a bad cursor or limit is a
/// 400 naming it, a cursor that cannot be followed a 410; another key's list never shows.
@Suite("What changed, through the API", .timeLimit(.minutes(5)))
struct WatchChangesAPITests {
    @Test func followedByCursor() async throws {
        let harness = await Harness(answer: { _, request in
            let asked = FakeTrackingPage.numbers(inFormBody: request.body)
            return UpstreamResponse(
                status: 200, headers: ["Content-Type": "text/html; charset=UTF-8"],
                body: FakeTrackingPage.html(
                    blocks: asked.map {
                        FakeTrackingPage.Block(number: $0, state: "輸送中", rows: [.init("輸送中", "01月11日 09:00", "羽田")])
                    }))
        })
        let numbers = ValidNumbers.numbers(2)
        let start = try JSON(data: await harness.get("/v1/watches/changes").body)
        let cursor = try #require(start["cursor"]?.int)
        #expect(start["watches"]?.elements.isEmpty == true && start["summary"] == .null)

        for number in numbers {
            #expect(await harness.send("POST", "/v1/watches", json: #"{"number": "\#(number.digits)"}"#).status == 201)
        }
        let added = try JSON(data: await harness.get("/v1/watches/changes?since=\(cursor)").body)
        // Both, each once as it is now (the poller may have checked one already).
        #expect(Set(added["watches"]?.elements.compactMap { $0["number"]?.string } ?? []) == Set(numbers.map(\.digits)))
        #expect(added["summary"]?["total"] == .number(2))
        #expect(added["more"] == .bool(false))

        // Checked: the first answer is a change; the same answer again is not (whoever checks: the poller too).
        for number in numbers {
            #expect(await harness.send("POST", "/v1/watches/\(number.digits)/refresh").status == 200)
        }
        let answered = try JSON(data: await harness.get("/v1/watches/changes?since=\(cursor)").body)
        let labels = answered["watches"]?.elements.map { $0["shipment"]?["status"]?["label"] } ?? []
        #expect(labels.count == 2 && labels.allSatisfy { $0 == .string("輸送中") })
        let third = try #require(answered["cursor"]?.int)
        for number in numbers {
            #expect(await harness.send("POST", "/v1/watches/\(number.digits)/refresh").status == 200)
        }
        let same = try JSON(data: await harness.get("/v1/watches/changes?since=\(third)").body)
        #expect(same["watches"]?.elements.isEmpty == true && same["cursor"]?.int == third && same["summary"] == .null)

        // Removed; one at a time says more follow.
        #expect(await harness.send("DELETE", "/v1/watches/\(numbers[1].digits)").status == 204)
        let removed = try JSON(data: await harness.get("/v1/watches/changes?since=\(third)").body)
        #expect(removed["removed"]?.elements == [.string(numbers[1].digits)])
        #expect(removed["summary"]?["total"] == .number(1))
        let paged = try JSON(data: await harness.get("/v1/watches/changes?since=\(cursor)&limit=1").body)
        #expect(paged["more"] == .bool(true) && paged["watches"]?.elements.count == 1)
    }

    @Test func refusals() async throws {
        let harness = await Harness()
        for (query, named) in [
            ("since=-1", "since \"-1\""), ("since=abc", "since \"abc\""), ("since=99999999999999999999", "since \""),
            ("since=1e3", "since \"1e3\""), ("limit=0", "limit \"0\""), ("limit=1001", "limit \"1001\""),
            ("limit=%00", "limit \""), ("cursor=3", "\"cursor\" is not a parameter"), ("since=0&wait=26", "wait \"26\""),
            ("since=0&wait=-1", "wait \"-1\""), ("since=0&wait=x", "wait \"x\""), ("seen=-2", "seen \"-2\""),
        ] {
            let answer = await harness.get("/v1/watches/changes?\(query)")
            #expect(answer.status == 400, "\(query)")
            let problem = try JSON(data: answer.body)
            #expect(problem["detail"]?.string?.contains(named) == true, "\(query): \(String(describing: problem["detail"]))")
            #expect(problem["reason"] == .string("invalid_request"))
        }
        let ahead = await harness.get("/v1/watches/changes?since=5000")
        #expect(ahead.status == 410)
        #expect(try JSON(data: ahead.body)["reason"] == .string("cursor_expired"))
        #expect(await harness.send("POST", "/v1/watches/changes", json: "{}").status == 405)
    }

    @Test("wait: the answer waits for a change (a long poll), and says nothing changed when none came in time")
    func waitsForAChange() async throws {
        let harness = await Harness()
        let start = try #require(try JSON(data: await harness.get("/v1/watches/changes").body)["cursor"]?.int)
        // Nothing changes: it looks once a second, three times, then answers that nothing did.
        let began = harness.clock.uptime
        let quiet = Task { await harness.get("/v1/watches/changes?since=\(start)&wait=3") }
        for second in 1...3 {
            await harness.clock.waitForSleeper(until: began + .seconds(second))
            harness.clock.advance(by: .seconds(1))
        }
        let nothing = try JSON(data: await quiet.value.body)
        #expect(nothing["watches"]?.elements.isEmpty == true && nothing["cursor"]?.int == start)

        // A watch is added while it waits: its next look answers with it.
        let waitingFrom = harness.clock.uptime
        let waiting = Task { await harness.get("/v1/watches/changes?since=\(start)&wait=25") }
        await harness.clock.waitForSleeper(until: waitingFrom + .seconds(1))
        let number = ValidNumbers.numbers(1)[0].digits
        #expect(await harness.send("POST", "/v1/watches", json: #"{"number": "\#(number)"}"#).status == 201)
        harness.clock.advance(by: .seconds(1))
        let changed = try JSON(data: await waiting.value.body)
        #expect(changed["watches"]?.elements.first?["number"] == .string(number))
        #expect(changed["latest"]?.int == changed["cursor"]?.int)
    }

    @Test func anotherKeysChangesAreNotShown() async throws {
        let harness = await Harness()
        let headers = try await harness.keys("shop", "home")
        let (shop, home) = (headers[0], headers[1])
        let number = ValidNumbers.numbers(1)[0].digits
        #expect(await harness.send("POST", "/v1/watches", json: #"{"number": "\#(number)"}"#, headers: shop).status == 201)
        #expect(await harness.send("DELETE", "/v1/watches/\(number)", headers: shop).status == 204)
        let seen = try JSON(data: await harness.get("/v1/watches/changes?since=0", headers: home).body)
        #expect(seen["watches"]?.elements.isEmpty == true && seen["removed"]?.elements.isEmpty == true)
        #expect(seen["cursor"] == .number(0))
    }
}

extension WatchChangesAPITests {
    @Test("one caller holds at most 8 of the waiting answers: its ninth answers at once, another caller still waits")
    func waitingSlotsPerCaller() async throws {
        let harness = await Harness()
        let headers = try await harness.keys("shop", "home")
        let (shop, home) = (headers[0], headers[1])
        let start = try #require(try JSON(data: await harness.get("/v1/watches/changes", headers: shop).body)["cursor"]?.int)
        let target = "/v1/watches/changes?since=\(start)&wait=25"
        var held: [Task<HTTPResponse, Never>] = []
        for _ in 0..<WatchRoutes.changesWaitingPerCaller {
            held.append(Task { await harness.get(target, headers: shop) })
        }
        await harness.clock.waitForSleepers(WatchRoutes.changesWaitingPerCaller)
        // The ninth of the same key does not wait: it answers now, on a clock that has not moved.
        let ninth = await harness.get(target, headers: shop)
        #expect(ninth.status == 200)
        #expect(harness.clock.sleeperCount == WatchRoutes.changesWaitingPerCaller)
        // Another key waits beside them.
        let other = Task { await harness.get(target, headers: home) }
        await harness.clock.waitForSleepers(WatchRoutes.changesWaitingPerCaller + 1)
        for _ in 0..<25 { harness.clock.advance(by: .seconds(1)) }
        for task in held { #expect(await task.value.status == 200) }
        #expect(await other.value.status == 200)
    }
}
