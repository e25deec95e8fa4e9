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
        let order = try Self.order(request)
        if Self.wantsCSV(request) { return try await csv(request, owner: owner, query: query, order: order) }
        var limit = 100
        if let text = request.queryValue("limit") {
            guard let value = Int(text), (1...500).contains(value) else {
                throw RouteProblem.bad("limit \"\(text.prefix(20))\" is not a number from 1 to 500")
            }
            limit = value
        }
        if let order { return try await sortedPage(request, owner: owner, query: query, order: order, limit: limit) }
        var cursor: Int64?
        if let text = request.queryValue("cursor") {
            guard let value = Int64(text), value >= 0 else {
                throw RouteProblem.bad(
                    "cursor \"\(text.prefix(20))\" is not one this server gave; use next_cursor as given")
            }
            cursor = value
        }
        let (store, after, asked, now) = (self.store, cursor, limit + 1, clock.now)
        let page = try await store.watches(owner: owner, matching: query, after: after, limit: asked, now: now)
        let shown = Array(page.prefix(limit))
        var body = Data(#"{"next_cursor":"#.utf8)
        WatchJSON.appendString(&body, page.count > limit ? String(shown.last?.id ?? 0) : nil)
        Self.appendWatches(&body, shown)
        return .jsonData(body)
    }

    /// A page of the list in a person's order at any offset (`?sort=…&offset=…`), with the list's size: the
    /// web app's table, which jumps to any row.
    private func sortedPage(_ request: HTTPRequest, owner: WatchOwner, query: WatchQuery, order: WatchOrder, limit: Int)
        async throws -> HTTPResponse
    {
        guard request.queryValue("cursor") == nil else {
            throw RouteProblem.bad("cursor pages the list in the order added; with sort or offset, page by offset")
        }
        var offset = 0
        if let text = request.queryValue("offset") {
            guard let value = Int(text), (0...WatchLimits.maxWatchesPerOwnerSetting).contains(value) else {
                throw RouteProblem.bad(
                    "offset \"\(text.prefix(20))\" is not a number from 0 to \(WatchLimits.maxWatchesPerOwnerSetting)")
            }
            offset = value
        }
        let (store, now) = (self.store, clock.now)
        let page = try await store.watches(
            owner: owner, matching: query, ordered: order, offset: offset, limit: limit, now: now)
        let next = offset + page.watches.count < page.total ? offset + page.watches.count : nil
        var body = Data(#"{"next_cursor":null,"sort":"#.utf8)
        WatchJSON.appendString(&body, order.text)
        body.append(Data(",\"offset\":\(offset),\"total\":\(page.total),\"next_offset\":\(next.map(String.init) ?? "null")".utf8))
        Self.appendWatches(&body, page.watches)
        return .jsonData(body)
    }

    /// `,"watches":[…]}`: the page's watches and the end of its object.
    static func appendWatches(_ body: inout Data, _ watches: [Watch]) {
        body.append(Data(#","watches":["#.utf8))
        for (index, watch) in watches.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(WatchJSON.encode(watch))
        }
        body.append(Data("]}".utf8))
    }

    /// `?sort=` (or `?offset=` alone, the order added): `nil` for the order added paged by cursor.
    static func order(_ request: HTTPRequest) throws(RouteProblem) -> WatchOrder? {
        guard let text = request.queryValue("sort") else {
            return request.queryValue("offset") == nil ? nil : WatchOrder()
        }
        guard let order = WatchOrder(text) else {
            throw .bad("sort \"\(text.prefix(20).visibleInOneLine)\" is not one of " + WatchOrder.allTexts.joined(separator: ", "))
        }
        return order
    }

    func summary(_ request: HTTPRequest) async throws -> HTTPResponse {
        let owner = Self.owner(of: request)
        let query = try WatchQuery(query: request.queryValue)
        let (store, now) = (self.store, clock.now)
        let summary = try await store.watchSummary(owner: owner, matching: query, now: now)
        return .jsonData(Self.object(summary.json))
    }

    /// `?format=csv`, or `Accept: text/csv` before any JSON type.
    static func wantsCSV(_ request: HTTPRequest) -> Bool {
        if let format = request.queryValue("format") { return format == "csv" }
        let accept = request.headers["accept"] ?? ""
        return accept.contains("text/csv") && !accept.hasPrefix("application/json")
    }

    /// The whole narrowed list as CSV (in the order added, or in `sort`'s): number, label, active, checked_at, then the tracking columns; the status
    /// in `lang` (default Japanese), and with `lang=ja` named the headers and carriers in Japanese too (without
    /// it, English headers and carrier codes, for programs); with `excel=true` a UTF-8 BOM, CRLF and numbers
    /// Excel keeps whole (`="…"`).
    private func csv(_ request: HTTPRequest, owner: WatchOwner, query: WatchQuery, order: WatchOrder?) async throws
        -> HTTPResponse
    {
        let lang = request.queryValue("lang") ?? "ja"
        guard lang == "ja" || lang == "en" else { throw RouteProblem.bad("lang is not ja or en") }
        let excel = request.queryValue("excel") == "true"
        let export = WatchListExport(store: store, gate: exports)
        let format = WatchListExport.Format(
            english: lang == "en", excel: excel, japaneseNames: request.queryValue("lang") == "ja")
        let file = try await export.write(owner: owner, query: query, order: order, format: format, now: clock.now)
        var response = HTTPResponse(status: 200)
        response.file = file
        response.headers.append(("Content-Type", "text/csv; charset=utf-8"))
        response.headers.append(("Content-Disposition", "attachment; filename=\"kuroneko-watches.csv\""))
        return response
    }
}
