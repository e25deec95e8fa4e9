import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoStore
import KuronekoTestSupport
import Testing

@testable import KuronekoServer

/// Bulk changes in the audit log with their numbers: a list removed names the numbers that were watched, every
/// finished one removed names the first of them and counts the rest, and no entry outgrows its 1,000 characters.
@Suite("the audit log names what a bulk change touched")
struct BulkAuditTests {
    /// The entry a route's declared audit makes of a request to `path` answered 200 with `answer`.
    static func entry(_ audit: RouteChange.Audit, path: String, body: Data, answer: Data) -> (action: String, detail: String)? {
        guard case .entry(let action, let detail) = audit else { return nil }
        let done = AuditedRequest(
            request: HTTPRequest(method: "POST", target: path, body: body),
            response: HTTPResponse(status: 200, headers: [], body: answer))
        return detail(done).map { (action, $0) }
    }

    @Test("removing a list names the numbers removed, not those that were not watched")
    func listRemoved() throws {
        let numbers = ValidNumbers.numbers(3)
        let body = try JSONSerialization.data(withJSONObject: ["numbers": numbers.map(\.formatted)])
        let answer = try JSONSerialization.data(withJSONObject: ["removed": 2, "not_watched": [numbers[1].digits]])
        let entry = Self.entry(AuditAction.removedMany, path: "/v1/watches/remove", body: body, answer: answer)
        #expect(entry?.action == "removed")
        #expect(entry?.detail == "2 parcels: \(numbers[0].formatted), \(numbers[2].formatted)")
    }

    @Test("every finished one removed: the first named, the rest counted, within 1,000 characters")
    func finishedRemoved() throws {
        let named = ValidNumbers.numbers(100).map(\.digits)
        let answer = try JSONSerialization.data(withJSONObject: ["removed": 812, "not_watched": [], "removed_numbers": named])
        let entry = Self.entry(
            AuditAction.removedMany, path: "/v1/watches/remove", body: Data(#"{"finished": true}"#.utf8), answer: answer)
        let detail = try #require(entry?.detail)
        #expect(detail.hasPrefix("812 finished parcels: \(ValidNumbers.numbers(1)[0].formatted), "), "\(detail)")
        #expect(detail.count <= AuditDetail.length)
        let shown = detail.split(separator: ",").count
        #expect(detail.hasSuffix(" and \(812 - shown) more"), "\(detail)")
        #expect(AuditDetail.numbers([]) == "0 parcels")
        #expect(AuditDetail.numbers([named[0]]) == "1 parcel: \(ValidNumbers.numbers(1)[0].formatted)")
        for count in [60, 65, 66, 67, 70, 5_000] {
            let text = AuditDetail.numbers(ValidNumbers.numbers(count).map(\.digits))
            #expect(text.count <= AuditDetail.length, "\(count)")
            let listed = text.split(separator: ",").count
            #expect(listed == count ? !text.contains("more") : text.hasSuffix(" and \(count - listed) more"), "\(count): \(text.suffix(40))")
        }
    }

    @Test("the route answers the first hundred finished numbers it removed")
    func routeNamesFinished() async throws {
        let harness = await Harness()
        let numbers = ValidNumbers.numbers(2)
        let now = harness.clock.now
        for number in numbers { _ = try await harness.store.add(number, label: nil, owner: .local, webhook: nil, now: now) }
        // The first delivered, so finished: nothing more to check.
        let delivered = Shipment(
            trackingNumber: numbers[0],
            status: ShipmentStatus(
                code: .delivered, label: "配達完了", labelEnglish: nil, summary: nil, note: nil, isTerminal: true),
            product: nil, scheduledDelivery: nil, events: [], deliveredAt: nil)
        _ = try await harness.store.record(delivered, fetchedAt: now) { _, _ in nil }
        let answer = try JSON(data: await harness.send("POST", "/v1/watches/remove", json: #"{"finished": true}"#).body)
        #expect(answer["removed"] == .number(1))
        #expect(answer["removed_numbers"]?.elements == [.string(numbers[0].digits)])
    }
}
