import Foundation
import Kuroneko
import KuronekoSheets
import KuronekoHTTP
@testable import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Testing

/// The list at scale: filters, counts, CSV, bulk add and remove, PATCH, each tried with hostile input.
@Suite("watch list at scale", .timeLimit(.minutes(10)))
struct WatchListAtScaleTests {
    /// Three watches with answers: 配達完了 (delivered), 輸送中 with a forecast today, 持戻 (a problem), and one
    /// with none yet.
    private static func filled(_ harness: Harness) async throws -> [TrackingNumber] {
        let numbers = ValidNumbers.numbers(4, from: 31_000_000_000)
        let now = harness.clock.now
        let today = JapanDateTime(now)
        let statuses: [(StatusCode, String, String?)] = [
            (.delivered, "配達完了", nil), (.inTransit, "輸送中", String(format: "%02d/%02d", today.month, today.day)),
            (.attemptFailed, "持戻（ご不在）", nil),
        ]
        for (index, number) in numbers.enumerated() {
            _ = try await harness.store.add(
                number, label: ["靴", "Winter coat", "本", nil][index], owner: .local, webhook: nil, now: now)
            guard index < statuses.count else { continue }
            let (code, label, forecast) = statuses[index]
            let scheduled = forecast.map { text in
                ScheduledDelivery(
                    raw: text, date: JapanDateTime(year: today.year, month: today.month, day: today.day),
                    windowStart: nil, windowEnd: nil)
            }
            let shipment = Shipment(
                trackingNumber: number,
                status: ShipmentStatus(
                    code: code, label: label, labelEnglish: nil, summary: nil, note: nil, isTerminal: code == .delivered
                ),
                product: nil, scheduledDelivery: scheduled, events: [], deliveredAt: nil)
            _ = try await harness.store.record(shipment, fetchedAt: now) { _, _ in
                code == .delivered ? nil : now.addingTimeInterval(3_600)
            }
        }
        return numbers
    }

    private static func numbers(_ answer: HTTPResponse) async throws -> [String] {
        try JSON(data: answer.body)["watches"]?.elements.compactMap { text($0["number"]) } ?? []
    }

    private static func text(_ value: JSON?) -> String? {
        if case .string(let text) = value { return text }
        return nil
    }

    @Test("filters by code, family, carrier, forecast day and text; each bad value refused by name")
    func filters() async throws {
        let harness = await Harness()
        let numbers = try await Self.filled(harness).map(\.digits)
        await #expect(try Self.numbers(await harness.get("/v1/watches?code=delivered")) == [numbers[0]])
        await #expect(try Self.numbers(await harness.get("/v1/watches?family=problem,pending")) == [numbers[2], numbers[3]])
        await #expect(try Self.numbers(await harness.get("/v1/watches?forecast=today")) == [numbers[1]])
        await #expect(try Self.numbers(await harness.get("/v1/watches?forecast=tomorrow")) == [])
        await #expect(try Self.numbers(await harness.get("/v1/watches?q=winter")) == [numbers[1]])
        await #expect(try Self.numbers(await harness.get("/v1/watches?q=\(numbers[2].suffix(6))")) == [numbers[2]])
        await #expect(try Self.numbers(await harness.get("/v1/watches?carrier=yamato&status=active")).count == 2)
        await #expect(try Self.numbers(await harness.get("/v1/watches?family=transit&limit=1")) == [numbers[1]])
        for (query, detail) in [
            ("code=flying", "is not a status code"), ("family=lost", "is not one of"), ("carrier=dhl", "carrier"),
            ("forecast=2026-13-40", "forecast"), ("forecast=yesterday", "forecast"),
            ("q=%01", "control character"), ("q=" + String(repeating: "a", count: 201), "longer than 200"),
            ("code=", "code is empty"), ("format=xml", "not csv"),
        ] {
            let answer = await harness.get("/v1/watches?\(query)")
            #expect(answer.status == 400, "\(query)")
            #expect(String(decoding: answer.body, as: UTF8.self).contains(detail), "\(query)")
        }
    }

    @Test("counts per status and family, and the forecasts of today and tomorrow")
    func summary() async throws {
        let harness = await Harness()
        _ = try await Self.filled(harness)
        let summary = try JSON(data: await harness.get("/v1/watches/summary").body)
        #expect(summary["total"] == .number(4) && summary["active"] == .number(3) && summary["finished"] == .number(1))
        #expect(summary["by_family"]?["problem"] == .number(1) && summary["by_family"]?["pending"] == .number(1))
        #expect(summary["by_status"]?["in_transit"] == .number(1))
        #expect(summary["forecast"]?["today"] == .number(1))
    }

    @Test("CSV: the same filters, the tracking columns, a formula written as text, a BOM for Excel")
    func csv() async throws {
        let harness = await Harness()
        let numbers = try await Self.filled(harness)
        _ = try await harness.store.update(
            numbers[3], owner: .local, label: .some("=cmd|' /C calc'!A0"), webhook: nil, now: Date())
        let answer = await harness.get("/v1/watches", headers: ["accept": "text/csv"])
        #expect(answer.headers.first { $0.name == "Content-Type" }?.value == "text/csv; charset=utf-8")
        #expect(answer.file != nil, "the export is sent from a file")
        let lines = String(decoding: answer.sentBody, as: UTF8.self).split(separator: "\n")
        let columns: [String] =
            ["number", "label", "active", "checked_at"] + TrackingColumns.names + ["family"] + RecordColumns.names(english: true)
        #expect(lines.first.map(String.init) == columns.joined(separator: ","))
        #expect(lines.count == 5)
        #expect(lines[4].hasPrefix("\(numbers[3].digits),'=cmd|' /C calc'!A0,"), "\(lines[4])")
        let filtered = await harness.get("/v1/watches?format=csv&code=delivered&excel=true")
        #expect(Array(filtered.sentBody.prefix(3)) == [0xEF, 0xBB, 0xBF])
        #expect(String(decoding: filtered.sentBody, as: UTF8.self).components(separatedBy: "\r\n").count == 3)
    }

    @Test("CSV of a list longer than a page: every watch once, in order, a page at a time")
    func csvPages() async throws {
        let harness = await Harness()
        let numbers = ValidNumbers.numbers(WatchListExport.pageSize * 2 + 345, from: 41_000_000_000)
        _ = try harness.store.database.writeNow { connection in
            for number in numbers {
                try connection.run(
                    "INSERT INTO watches (owner, number, created_at, next_check_at) VALUES ('local', ?, 1, 1)",
                    [.text(number.digits)])
            }
        }
        let answer = await harness.get("/v1/watches?format=csv")
        #expect(answer.status == 200)
        let rows = String(decoding: answer.sentBody, as: UTF8.self).split(separator: "\n").dropFirst()
        #expect(rows.map { String($0.prefix(12)) } == numbers.map(\.digits))
    }

    @Test("bulk add answers each item in order; too many, not an array, bad items are refused by name")
    func bulkAdd() async throws {
        let harness = await Harness()
        let numbers = ValidNumbers.numbers(3, from: 32_000_000_000)
        let body =
            "[" + numbers.map { #"{"number": "\#($0.formatted)"}"# }.joined(separator: ",")
            + #", {"number": "12"}, 7, {"number": "\#(numbers[0].digits)"}, {"number": "\#(numbers[1].digits)", "extra": 1}]"#
        let answer = await harness.send("POST", "/v1/watches", json: body)
        #expect(answer.status == 200)
        let results = try JSON(data: answer.body)["results"]?.elements ?? []
        #expect(results.map { $0["status"] } == [201, 201, 201, 400, 400, 200, 400].map { .number($0) })
        #expect(Self.text(results[3]["detail"])?.contains("2 digits") == true)
        #expect(Self.text(results[6]["detail"])?.contains("unknown field") == true)
        #expect(
            results.map { Self.text($0["reason"]) }
                == [nil, nil, nil, "invalid_number", "invalid_request", nil, "invalid_request"])
        let tooMany = "[" + Array(repeating: #"{"number": "1"}"#, count: 1_001).joined(separator: ",") + "]"
        #expect(await harness.send("POST", "/v1/watches", json: tooMany).status == 400)
        #expect(await harness.send("POST", "/v1/watches", json: "[]").status == 400)
        #expect(await harness.send("POST", "/v1/watches", json: "[{").status == 400)
    }

    @Test("bulk remove: a list or every finished one; PATCH the label and the webhook with hostile input")
    func removeAndPatch() async throws {
        let harness = await Harness()
        let numbers = try await Self.filled(harness)
        for body in [
            "{}", #"{"numbers": []}"#, #"{"numbers": [7]}"#, #"{"numbers": ["12"]}"#, #"{"finished": false}"#,
            #"{"numbers": ["1"], "finished": true}"#, "nonsense",
        ] {
            #expect(await harness.send("POST", "/v1/watches/remove", json: body).status == 400, "\(body)")
        }
        let finished = try JSON(
            data: await harness.send("POST", "/v1/watches/remove", json: #"{"finished": true}"#).body)
        #expect(finished["removed"] == .number(1))
        let listed = try JSON(
            data: await harness.send(
                "POST", "/v1/watches/remove",
                json:
                    #"{"numbers": ["\#(numbers[1].formatted)", "\#(ValidNumbers.numbers(1, from: 33_000_000_000)[0].digits)"]}"#
            ).body)
        #expect(listed["removed"] == .number(1) && listed["not_watched"]?.elements.count == 1)
        let path = "/v1/watches/\(numbers[2].digits)"
        for (body, detail, reason) in [
            (#"{"label": 7}"#, "label is not", "invalid_label"),
            (#"{"colour": "red"}"#, "unknown field", "invalid_request"),
            ("[]", "not a JSON object", "invalid_request"), (#"{"label": "a\u0007b"}"#, "control", "invalid_label"),
            (#"{"webhook_url": "ftp://x"}"#, "http", "invalid_webhook"), ("{}", "not a JSON object", "invalid_request"),
        ] {
            let answer = await harness.send("PATCH", path, json: body)
            #expect(answer.status == 400, "\(body)")
            #expect(
                String(decoding: answer.body, as: UTF8.self).contains(detail),
                "\(body): \(String(decoding: answer.body, as: UTF8.self))")
            #expect(Self.text(try JSON(data: answer.body)["reason"]) == reason, "\(body)")
        }
        let renamed = try JSON(data: await harness.send("PATCH", path, json: #"{"label": "本棚"}"#).body)
        #expect(renamed["label"] == .string("本棚"))
        let cleared = try JSON(data: await harness.send("PATCH", path, json: #"{"label": null}"#).body)
        #expect(cleared["label"] == .null)
        let gone = await harness.send("PATCH", "/v1/watches/\(numbers[1].digits)", json: #"{"label": "x"}"#)
        #expect(gone.status == 404)
        #expect(Self.text(try JSON(data: gone.body)["reason"]) == "not_watched")
        let badNumber = await harness.send("PATCH", "/v1/watches/12", json: #"{"label": "x"}"#)
        #expect(badNumber.status == 400)
        #expect(Self.text(try JSON(data: badNumber.body)["reason"]) == "invalid_number")
    }
}

extension HTTPResponse {
    /// The body as the server sends it: from its file when it has one.
    var sentBody: Data { file?.contents() ?? body }
}
