import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoStore

/// `GET /v1/watches` (paged JSON, or the whole list as CSV) and `GET /v1/watches/summary`, narrowed by a
/// ``WatchQuery``.
extension WatchRoutes {
    func list(_ request: HTTPRequest) async throws -> HTTPResponse {
        let owner = Self.owner(of: request)
        let query = try WatchQuery(query: request.queryValue)
        if let format = request.queryValue("format"), format != "csv" {
            throw RouteProblem.bad("format \"\(format.prefix(20))\" is not csv (leave it out for JSON)")
        }
        if Self.wantsCSV(request) { return try await csv(request, owner: owner, query: query) }
        var limit = 100
        if let text = request.queryValue("limit") {
            guard let value = Int(text), (1...500).contains(value) else {
                throw RouteProblem.bad("limit \"\(text.prefix(20))\" is not a number from 1 to 500")
            }
            limit = value
        }
        var cursor: Int64?
        if let text = request.queryValue("cursor") {
            guard let value = Int64(text), value >= 0 else {
                throw RouteProblem.bad(
                    "cursor \"\(text.prefix(20))\" is not one this server gave; use next_cursor as given")
            }
            cursor = value
        }
        let (store, state, after, asked, now) = (self.store, query.state, cursor, limit + 1, clock.now)
        let page: [Watch]
        if query.isEmpty {
            page = try await StoreThreads.run(on: store) {
                try store.watches(owner: owner, filter: state, after: after, limit: asked)
            }
        } else {
            // Narrowed in memory: an owner has at most WatchLimits.watchesPerOwner watches.
            page = Array(
                try await Self.all(owner, query: query, store: store, now: now).lazy.map(\.0).filter {
                    $0.id > (after ?? 0)
                }.prefix(asked))
        }
        let shown = Array(page.prefix(limit))
        var body = Data(#"{"next_cursor":"#.utf8)
        WatchJSON.appendString(&body, page.count > limit ? String(shown.last?.id ?? 0) : nil)
        body.append(Data(#","watches":["#.utf8))
        for (index, watch) in shown.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(WatchJSON.encode(watch))
        }
        body.append(Data("]}".utf8))
        return .jsonData(body)
    }

    func summary(_ request: HTTPRequest) async throws -> HTTPResponse {
        let owner = Self.owner(of: request)
        let query = try WatchQuery(query: request.queryValue)
        let (store, now) = (self.store, clock.now)
        var all = query
        all.codes = nil
        all.families = nil
        all.forecast = nil
        let watches = try await Self.all(owner, query: all, store: store, now: now, alwaysFacts: true)
        return .jsonData(Self.object(WatchSummary(watches, now: now).json))
    }

    /// Every watch of the owner the query keeps, in creation order, with its facts when they were read.
    static func all(
        _ owner: WatchOwner, query: WatchQuery, store: any WatchStore, now: Date, alwaysFacts: Bool = false
    ) async throws -> [(Watch, WatchQuery.Facts?)] {
        let state = query.state
        let watches = try await StoreThreads.run(on: store) {
            try store.watches(owner: owner, filter: state, after: nil, limit: WatchLimits.watchesPerOwner)
        }
        let reads = query.readsShipments || alwaysFacts
        return watches.compactMap { watch in
            let facts = reads ? WatchQuery.Facts.of(watch) : nil
            return query.matches(watch, facts: facts, now: now) ? (watch, facts) : nil
        }
    }

    /// `?format=csv`, or `Accept: text/csv` before any JSON type.
    static func wantsCSV(_ request: HTTPRequest) -> Bool {
        if let format = request.queryValue("format") { return format == "csv" }
        let accept = request.headers["accept"] ?? ""
        return accept.contains("text/csv") && !accept.hasPrefix("application/json")
    }

    /// The whole narrowed list as CSV: number, label, active, checked_at, then the tracking columns; the status
    /// in `lang` (default Japanese); with `excel=true` a UTF-8 BOM and CRLF, for Japanese Excel.
    private func csv(_ request: HTTPRequest, owner: WatchOwner, query: WatchQuery) async throws -> HTTPResponse {
        let lang = request.queryValue("lang") ?? "ja"
        guard lang == "ja" || lang == "en" else { throw RouteProblem.bad("lang is not ja or en") }
        let excel = request.queryValue("excel") == "true"
        let (store, now) = (self.store, clock.now)
        let watches = try await Self.all(owner, query: query, store: store, now: now)
        let end = excel ? "\r\n" : "\n"
        var text = (excel ? "\u{FEFF}" : "")
        text += (["number", "label", "active", "checked_at"] + TrackingColumns.names).joined(separator: ",") + end
        for (watch, _) in watches {
            let tracking =
                watch.latest?.shipment.map { TrackingColumns.cells(for: $0, english: lang == "en") }
                ?? TrackingColumns.cells(error: "")
            let cells =
                [
                    watch.number.digits, watch.label ?? "", watch.active ? "true" : "false",
                    watch.checkedAt.map { JapanDateTime($0).iso8601 } ?? "",
                ] + tracking
            text += cells.map(TrackingColumns.quoted).joined(separator: ",") + end
        }
        var response = HTTPResponse(status: 200, body: Data(text.utf8))
        response.headers.append(("Content-Type", "text/csv; charset=utf-8"))
        response.headers.append(("Content-Disposition", "attachment; filename=\"kuroneko-watches.csv\""))
        return response
    }
}
