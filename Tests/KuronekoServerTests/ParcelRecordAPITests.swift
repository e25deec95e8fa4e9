import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoServer
import KuronekoStore
import KuronekoTestSupport
import Testing

/// A parcel's record through the API: sent with the watch (alone or in bulk), changed part by part with
/// PATCH, marked handled, found by order number and telephone, written into the download (which follows the
/// filter), refused by name when a part is wrong, and never reachable with another key.
@Suite("The parcel record, through the API", .timeLimit(.minutes(5)))
struct ParcelRecordAPITests {
    static let record = #"""
        {"reference": "ORD-0042", "recipient": {"name": "髙橋 花子", "telephone": "090-1234-5678", "postcode": "1500001"},
         "shipped_on": "2026/12/01", "fields": [{"name": "品名", "value": "靴"}]}
        """#

    @Test func keptChangedAndFound() async throws {
        let harness = await Harness()
        let numbers = ValidNumbers.numbers(3)
        let added = await harness.send(
            "POST", "/v1/watches", json: #"{"number": "\#(numbers[0].digits)", "record": \#(Self.record)}"#)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let watch = try JSON(data: added.body)
        #expect(watch["record"]?["reference"] == .string("ORD-0042"))
        #expect(watch["record"]?["recipient"]?["postcode"] == .string("150-0001"))
        #expect(watch["record"]?["shipped_on"] == .string("2026-12-01"))
        #expect(watch["record"]?["fields"]?.elements.first?["value"] == .string("靴"))

        // In bulk: a bad record refuses its item by name; the others are added.
        let bulk = await harness.send(
            "POST", "/v1/watches",
            json: #"""
                [{"number": "\#(numbers[1].digits)", "record": {"reference": "ORD-0043"}},
                 {"number": "\#(numbers[2].digits)", "record": {"recipient": {"email": "nobody"}}}]
                """#)
        let results = try JSON(data: bulk.body)["results"]?.elements ?? []
        #expect(results.count == 2)
        #expect(results.first?["status"] == .number(201))
        #expect(results.last?["status"] == .number(400))
        #expect(results.last?["reason"] == .string("invalid_record"))
        #expect(results.last?["detail"] == .string("record.recipient.email \"nobody\" is not an e-mail address; expected name@example.jp"))

        // PATCH: a note and handled; the parts not named stay.
        let patched = await harness.send(
            "PATCH", "/v1/watches/\(numbers[0].digits)", json: #"{"record": {"note": "再配達依頼済み", "handled": true}}"#)
        #expect(patched.status == 200, "\(String(decoding: patched.body, as: UTF8.self))")
        let after = try JSON(data: patched.body)
        #expect(after["record"]?["note"] == .string("再配達依頼済み"))
        #expect(after["record"]?["handled"]?["by"] == .string("local"))
        #expect(after["record"]?["reference"] == .string("ORD-0042"))

        // Search by order number and by telephone, however typed.
        for typed in ["ORD-0042", "09012345678", "%EF%BC%90%EF%BC%99%EF%BC%90-1234-5678", "%E9%AB%98%E6%A9%8B"] {
            let found = try JSON(data: await harness.get("/v1/watches?q=\(typed)").body)
            let listed: [JSON?] = found["watches"]?.elements.map { $0["number"] } ?? []
            #expect(listed == [JSON.string(numbers[0].digits)], "\(typed)")
        }

        // The download carries the record's columns and follows the filter.
        let csv = String(decoding: await harness.get("/v1/watches?format=csv&q=ORD-0042").sentBody, as: UTF8.self)
        let lines = csv.split(separator: "\n")
        #expect(lines.count == 2, "\(csv)")
        #expect(lines.first?.hasSuffix(",reference,recipient_name,telephone,email,postcode,prefecture,address,shipped_on,note,handled_at,品名") == true)
        #expect(lines.last?.contains(",ORD-0042,髙橋 花子,090-1234-5678,,150-0001,,,2026-12-01,再配達依頼済み,") == true, "\(csv)")
        #expect(lines.last?.hasSuffix(",靴") == true)

        // The whole record forgotten.
        let forgotten = await harness.send("PATCH", "/v1/watches/\(numbers[0].digits)", json: #"{"record": null}"#)
        #expect(try JSON(data: forgotten.body)["record"] == .null)
    }

    @Test func hostileRecords() async throws {
        let harness = await Harness()
        let number = ValidNumbers.numbers(1)[0].digits
        #expect(await harness.send("POST", "/v1/watches", json: #"{"number": "\#(number)"}"#).status == 201)
        let cases: [(String, String)] = [
            (#"{"record": "ORD"}"#, "record is not an object"),
            (#"{"record": {"reference": ["a"]}}"#, "record.reference is not a string or null"),
            (#"{"record": {"handled": "yes"}}"#, "record.handled is not true or false"),
            (#"{"record": {"handled": 1}}"#, "record.handled is not true or false"),
            (#"{"record": {"owner": "key:2"}}"#, "record.owner is not a part of a record"),
            (#"{"record": {"note": "\u0000"}}"#, "record.note contains a control character (U+0000)"),
            (#"{"record": {"note": "\#(String(repeating: "長", count: 1_001))"}}"#, "record.note is 1001 characters long"),
            (#"{"record": {"shipped_on": "2026-13-01"}}"#, "record.shipped_on \"2026-13-01\" is not a day"),
            (#"{"record": {"recipient": {"postcode": "abc"}}}"#, "record.recipient.postcode \"abc\" is not a postcode"),
            (
                #"{"record": {"fields": [\#(Array(repeating: #"{"name": "a", "value": "b"}"#, count: 31).joined(separator: ","))]}}"#,
                "record.fields holds 31 columns"
            ),
        ]
        for (body, detail) in cases {
            let answer = await harness.send("PATCH", "/v1/watches/\(number)", json: body)
            let problem = try JSON(data: answer.body)
            #expect(answer.status == 400, "\(body)")
            #expect(problem["reason"] == .string("invalid_record"), "\(body)")
            if case .string(let text)? = problem["detail"] {
                #expect(text.hasPrefix(detail), "\(text)")
            } else {
                Issue.record("no detail for \(body)")
            }
        }
        // Nothing was written by any of them.
        #expect(try JSON(data: await harness.get("/v1/watches/\(number)").body)["record"] == .null)
    }

    @Test func anotherKeysRecordIsUnreachable() async throws {
        let harness = await Harness()
        let headers = try await harness.keys("shop", "home")
        let (shop, home) = (headers[0], headers[1])
        let number = ValidNumbers.numbers(1)[0].digits
        let added = await harness.send(
            "POST", "/v1/watches", json: #"{"number": "\#(number)", "record": \#(Self.record)}"#, headers: shop)
        #expect(added.status == 201)
        #expect(await harness.send("PATCH", "/v1/watches/\(number)", json: #"{"record": {"note": "x"}}"#, headers: home).status == 404)
        let searched = try JSON(data: await harness.get("/v1/watches?q=09012345678", headers: home).body)
        #expect(searched["watches"]?.elements.isEmpty == true)
        let csv = String(decoding: await harness.get("/v1/watches?format=csv", headers: home).sentBody, as: UTF8.self)
        #expect(!csv.contains("ORD-0042") && !csv.contains("品名"))
    }
}
