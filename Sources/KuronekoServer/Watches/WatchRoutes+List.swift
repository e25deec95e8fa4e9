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
        let (store, after, asked, now) = (self.store, cursor, limit + 1, clock.now)
        let page = try await store.watches(owner: owner, matching: query, after: after, limit: asked, now: now)
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
        let summary = try await store.watchSummary(owner: owner, matching: query, now: now)
        return .jsonData(Self.object(summary.json))
    }

    /// `?format=csv`, or `Accept: text/csv` before any JSON type.
    static func wantsCSV(_ request: HTTPRequest) -> Bool {
        if let format = request.queryValue("format") { return format == "csv" }
        let accept = request.headers["accept"] ?? ""
        return accept.contains("text/csv") && !accept.hasPrefix("application/json")
    }

    /// The whole narrowed list as CSV: number, label, active, checked_at, then the tracking columns; the status
    /// in `lang` (default Japanese), and with `lang=ja` named the headers and carriers in Japanese too (without
    /// it, English headers and carrier codes, for programs); with `excel=true` a UTF-8 BOM, CRLF and numbers
    /// Excel keeps whole (`="…"`).
    private func csv(_ request: HTTPRequest, owner: WatchOwner, query: WatchQuery) async throws -> HTTPResponse {
        let lang = request.queryValue("lang") ?? "ja"
        guard lang == "ja" || lang == "en" else { throw RouteProblem.bad("lang is not ja or en") }
        let excel = request.queryValue("excel") == "true"
        let export = WatchListExport(store: store, gate: exports)
        let format = WatchListExport.Format(
            english: lang == "en", excel: excel, japaneseNames: request.queryValue("lang") == "ja")
        let file = try await export.write(owner: owner, query: query, format: format, now: clock.now)
        var response = HTTPResponse(status: 200)
        response.file = file
        response.headers.append(("Content-Type", "text/csv; charset=utf-8"))
        response.headers.append(("Content-Disposition", "attachment; filename=\"kuroneko-watches.csv\""))
        return response
    }
}
