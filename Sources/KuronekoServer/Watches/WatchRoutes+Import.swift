import Foundation
import Kuroneko
import KuronekoSheets
import KuronekoHTTP
import KuronekoStore

/// `POST /v1/watches/import`: a shop's sheet (the CSV a spreadsheet or a label tool saves, UTF-8, UTF-16 or
/// Shift_JIS) in the body, read as `kuroneko import --watch` reads it: the columns recognised by their headers
/// (the number, the label, the record's, the carrier), every valid number watched with its row's label and
/// record, at its row's carrier or found at its first check (never guessed). Read a piece at a time; the
/// answer is the report. The first checks come from the poller at its pace, as for any new watch.
extension WatchRoutes {
    public static let importPath = "/v1/watches/import"
    /// The largest sheet taken (about 100,000 rows of a label tool's columns).
    public static let importBytes = 16 << 20
    /// Sheets read at once (one of them per list); another is answered 503.
    static let concurrentImports = 2
    /// Bytes decoded at a time.
    static let importPiece = 1 << 16
    /// Rows written in one transaction.
    static let importBatch = 500

    func registerImport(into router: inout Router) {
        let routes = self
        router.add("POST", Self.importPath, declares: RouteChange(needs: .staff, audit: AuditAction.imported)) { request, _ in
            await routes.answer(request) { try await routes.importSheet(request) }
        }
    }

    func importSheet(_ request: HTTPRequest) async throws -> HTTPResponse {
        let owner = Self.owner(of: request)
        var named: Carrier?
        if let text = request.queryValue("carrier") {
            guard let carrier = Carrier(rawValue: text) else {
                throw RouteProblem.bad("carrier \"\(text.prefix(20).visibleInOneLine)\" is not \(CarrierRegistry.namesInWords)")
            }
            named = carrier
        }
        var forced: SheetEncoding?
        if let text = request.queryValue("encoding") {
            guard let encoding = SheetEncoding(rawValue: text) else {
                throw RouteProblem.bad("encoding \"\(text.prefix(20).visibleInOneLine)\" is not utf-8, utf-16 or cp932")
            }
            forced = encoding
        }
        // Columns chosen by the uploader, as the command line's --column takes them: `column=email=お届け先メール`.
        var chosen: [RecordRole: String] = [:]
        let columnParameters = request.query.filter { $0.name == "column" }
        guard columnParameters.count <= RecordRole.allCases.count else {
            throw RouteProblem.bad(
                "\(columnParameters.count) column parameters; at most \(RecordRole.allCases.count), one per role")
        }
        for parameter in columnParameters {
            do {
                let (role, column) = try RecordRole.choice(parameter.value)
                guard !column.isEmpty, column.count <= 200 else {
                    throw RouteProblem.bad("column \(role.rawValue)= names no column; give a header or a number from 1")
                }
                chosen[role] = column
            } catch let error as RecordColumnsError {
                throw RouteProblem.bad(error.description(option: "column"))
            }
        }
        guard !request.body.isEmpty, request.body.count <= Self.importBytes else {
            throw RouteProblem.bad(
                "send the sheet itself (a CSV file as a spreadsheet saves it, 1 byte to \(Self.importBytes >> 20) MiB)")
        }
        // At most two sheets at once on the server, one of them per list: a list's second waits for its first.
        guard imports.enter(key: owner.id) else {
            throw RouteProblem.busy(
                "a sheet is being imported for this list already, or \(Self.concurrentImports) for all lists; "
                    + "try again when it is done")
        }
        defer { imports.leave(key: owner.id) }
        // Read where it lies, a piece at a time: the body is not copied whole.
        let bytes = request.body
        // Read through once before anything is watched: a sheet with a byte that does not read adds nothing, and
        // the numbers on more than one row are known before the first of them is watched.
        var noting = SheetImportReading(named: named, chosen: chosen, noting: true)
        try await Self.sheetText(bytes, forced: forced) { rows, last in
            for (number, row) in rows { _ = try noting.read(row, number: number) }
            if last { _ = try noting.finish() }
            return true
        }
        var reading = SheetImportReading(named: named, chosen: chosen, repeats: noting.repeats)
        let (store, now) = (self.store, clock.now)
        let encoding = try await Self.sheetText(bytes, forced: forced) { rows, last in
            // A piece's rows are written in batches, each one transaction.
            var batch: [(number: Int, row: NewWatchRow)] = []
            func write() async throws -> Bool {
                defer { batch = [] }
                guard !batch.isEmpty else { return true }
                let outcomes = try await store.addMany(batch.map(\.row), owner: owner, now: now)
                for ((number, _), outcome) in zip(batch, outcomes) {
                    switch outcome {
                    case .success(let created)?: reading.report.added(created: created)
                    case .failure(WatchStoreError.limitReached(let limit))?:
                        reading.report.stopped = "row \(number): the list holds its \(limit) watches, the most it may; "
                            + "the rows after it were not read"
                        return false
                    case .failure(let error)?:
                        reading.report.skip(
                            "row \(number): \(error)",
                            .init(row: number, code: "not_added", values: ["detail": String("\(error)".prefix(200))]))
                    case nil: return false
                    }
                }
                return true
            }
            var given: [SheetImportReading.Wanted] = []
            for (number, row) in rows { given += try reading.read(row, number: number) }
            if last { given += try reading.finish() }
            for wanted in given {
                batch.append(
                    (wanted.row, NewWatchRow(
                        number: wanted.number, carrier: wanted.carrier, label: wanted.label,
                        record: wanted.record.map(ParcelRecordChange.init(filling:)))))
                if batch.count >= Self.importBatch, try await !write() { return false }
            }
            return try await write()
        }
        guard reading.sheet != nil, reading.report.rows + reading.report.skipped > 0 else {
            throw RouteProblem.bad("the sheet has no rows (a header at most); is it the right file?")
        }
        var response = HTTPResponse.jsonData(Self.object(reading.report.json(encoding: encoding.name)))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// Decodes and splits the sheet a piece at a time, handing each piece's rows (numbered from 1) to `rows`,
    /// which says whether to go on. - Returns: the encoding read.
    @discardableResult
    static func sheetText(
        _ bytes: Data, forced: SheetEncoding?, rows: ([(Int, CSVStream.Row)], Bool) async throws -> Bool
    ) async throws -> SheetEncoding {
        let decoder: SheetDecoder
        do {
            decoder = try SheetDecoder(first: Array(bytes.prefix(importPiece)), forced: forced)
        } catch {
            throw RouteProblem.bad("the sheet \(error)")
        }
        var parser: CSVStream?
        var count = 0
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + importPiece)
            let chunk = Array(bytes[(bytes.startIndex + start)..<(bytes.startIndex + end)])
            let text: String
            do {
                text = try decoder.decode(chunk, last: end == bytes.count, row: count + 1)
            } catch {
                throw RouteProblem.bad("the sheet \(error)")
            }
            var piece: [(Int, CSVStream.Row)] = []
            // A run of blank lines is counted, not handed on row by row.
            func take(_ row: CSVStream.Row) {
                if case .blank(let lines) = row {
                    count += lines
                    return
                }
                count += 1
                piece.append((count, row))
            }
            // Commas, or tabs when the first lines have more of them (Amazon's templates).
            var reader = parser ?? CSVStream(separator: CSVStream.separator(of: text[...]))
            reader.feed(text, emit: take)
            if end == bytes.count { reader.finish(emit: take) }
            parser = reader
            guard try await rows(piece, end == bytes.count) else { break }
            start = end
            await Task.yield()
        }
        return decoder.encoding
    }
}
