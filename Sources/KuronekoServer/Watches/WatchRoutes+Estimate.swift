import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoStore
import Synchronization

/// `GET /v1/watches/{number}/estimate`: for a parcel on its way without the carrier's planned day, the day it is
/// likely to come, learnt from the list's own delivered parcels (``TransitForecast``): an estimate, never the
/// carrier's word, and `null` with the reason when there is none to give.
extension WatchRoutes {
    func registerEstimate(into router: inout Router) {
        let routes = self
        router.add("GET", "/v1/watches/{number}/estimate") { request, parameters in
            await routes.answer(request) { try await routes.estimate(request, parameters) }
        }
        router.add("GET", "/v1/watches/delivery-days") { request, _ in
            await routes.answer(request) { try await routes.deliveryDays(request) }
        }
    }

    /// `GET /v1/watches/delivery-days` (`?format=csv` as a sheet): the list's days to deliver per carrier and
    /// destination prefecture, from its delivered parcels: how many, the median and 90th percentile of days from
    /// the first row to delivery, and how many of those the carrier planned a day for came by it.
    private func deliveryDays(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let unknown = request.query.first(where: { $0.name != "format" }) {
            throw RouteProblem.bad("\"\(unknown.name.prefix(30))\" is not a parameter here; it takes format=csv")
        }
        if let format = request.queryValue("format"), format != "csv" {
            throw RouteProblem.bad("format \"\(format.prefix(20))\" is not csv (leave it out for JSON)")
        }
        let owner = Self.owner(of: request)
        let samples = try await histories.samples(of: owner, at: clock.now) { owner in
            try await store.watches(owner: owner, filter: .finished, after: nil, limit: TransitHistories.watchesRead)
        }
        let rows = TransitForecast.table(samples)
        func rate(_ row: TransitForecast.Row) -> Double? {
            row.planned == 0 ? nil : (Double(row.onTime) / Double(row.planned) * 1_000).rounded() / 1_000
        }
        if request.queryValue("format") == "csv" {
            var lines = [
                CSVLine.make(
                    ["carrier", "prefecture", "parcels", "median_days", "p90_days", "on_time", "planned", "on_time_rate"],
                    excel: false)
            ]
            for row in rows {
                lines.append(
                    CSVLine.make(
                        [
                            row.carrier.rawValue, row.destination ?? "", String(row.parcels), String(row.median), String(row.p90),
                            String(row.onTime), String(row.planned), rate(row).map { String($0) } ?? "",
                        ], excel: false))
            }
            var response = HTTPResponse.content(Data((lines.joined(separator: "\r\n") + "\r\n").utf8), type: "text/csv; charset=utf-8")
            response.headers.append(("Content-Disposition", "attachment; filename=\"kuroneko-delivery-days.csv\""))
            return response
        }
        return .jsonData(
            WatchRoutes.object([
                "parcels": samples.count,
                "rows": rows.map { row -> [String: Any] in
                    [
                        "carrier": row.carrier.rawValue, "prefecture": row.destination as Any? ?? NSNull(), "parcels": row.parcels,
                        "median_days": row.median, "p90_days": row.p90, "on_time": row.onTime, "planned": row.planned,
                        "on_time_rate": rate(row) as Any? ?? NSNull(),
                    ]
                },
            ]))
    }

    private func estimate(_ request: HTTPRequest, _ parameters: [String: String]) async throws -> HTTPResponse {
        let watch = try await lookUp(request, parameters)
        func none(_ reason: String) -> Data { WatchRoutes.object(["estimate": NSNull(), "reason": reason]) }
        guard watch.active, let shipment = watch.latest?.shipment, let carrier = watch.carrier ?? Optional(shipment.carrier)
        else { return .jsonData(none(watch.active ? "not_checked" : "finished")) }
        if shipment.status.code == .notFound { return .jsonData(none("not_registered")) }
        if (shipment.requestedDelivery ?? shipment.scheduledDelivery)?.date != nil { return .jsonData(none("planned")) }
        let samples = try await histories.samples(of: watch.owner, at: clock.now) { owner in
            try await store.watches(owner: owner, filter: .finished, after: nil, limit: TransitHistories.watchesRead)
        }
        let first = shipment.events.first { $0.at != nil }
        let start = first?.at ?? JapanDateTime(watch.createdAt)
        guard
            let estimate = TransitForecast.estimate(
                samples, carrier: carrier, product: shipment.product, origin: first?.place,
                destination: watch.record?.recipient?.prefecture, start: start)
        else { return .jsonData(none("too_few_parcels")) }
        return .jsonData(
            WatchRoutes.object([
                "estimate": [
                    "day": estimate.day.dateText, "earliest": estimate.earliest.dateText, "latest": estimate.latest.dateText,
                    "basis": estimate.basis.rawValue, "parcels": estimate.parcels,
                ],
                "reason": NSNull(),
            ]))
    }
}

/// Each list's delivered parcels as journeys, read at most every 10 minutes a list and kept for at most 256 lists
/// (the least recently read forgotten first).
final class TransitHistories: Sendable {
    static let watchesRead = 5_000
    static let kept = 256
    static let maxAge: TimeInterval = 600
    private let entries = Mutex<[String: (at: Date, samples: [TransitForecast.Sample])]>([:])

    func samples(
        of owner: WatchOwner, at now: Date, read: (WatchOwner) async throws -> [Watch]
    ) async throws -> [TransitForecast.Sample] {
        if let entry = entries.withLock({ $0[owner.id] }), now.timeIntervalSince(entry.at) < Self.maxAge { return entry.samples }
        let samples = try await read(owner).compactMap { watch in
            watch.latest?.shipment.flatMap { TransitForecast.Sample($0, destination: watch.record?.recipient?.prefecture) }
        }
        entries.withLock { entries in
            entries[owner.id] = (now, samples)
            if entries.count > Self.kept, let oldest = entries.min(by: { $0.value.at < $1.value.at })?.key {
                entries[oldest] = nil
            }
        }
        return samples
    }
}
