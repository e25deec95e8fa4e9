import Foundation
import Kuroneko
import KuronekoSheets
import KuronekoHTTP
import KuronekoStore
import Synchronization

/// The whole narrowed list as CSV, written a page at a time into an unlinked temporary file that the server
/// then sends and closes: the server's memory holds one page, whatever the list's size. At most
/// ``concurrentExports`` are written at once; another is answered 503 with `Retry-After`.
public struct WatchListExport: Sendable {
    /// Rows read from the store at a time.
    static let pageSize = 1_000
    static let concurrentExports = 2

    let store: any WatchStore
    let gate: ConcurrencyLimit

    struct Format: Sendable {
        /// Statuses in English.
        let english: Bool
        /// A UTF-8 BOM and CRLF, for Japanese Excel, and numbers Excel keeps whole.
        let excel: Bool
        /// Headers and carrier names in Japanese (`lang=ja` asked for by name); else English headers and carrier
        /// codes, what a program reading the sheet expects.
        var japaneseNames = false
        /// The sheet columns the records keep (``ParcelRecord/fields``), one column each after the record's.
        var fieldNames: [String] = []
    }

    /// Writes the export, in the order added or in `order` (the order on a person's screen); the file is the
    /// response's body.
    func write(owner: WatchOwner, query: WatchQuery, order: WatchOrder? = nil, format: Format, now: Date) async throws
        -> ResponseFile
    {
        guard gate.enter() else {
            throw RouteProblem.busy(
                "\(Self.concurrentExports) exports are being written already; try again in a moment")
        }
        defer { gate.leave() }
        let file = try ExportFile()
        let end = format.excel ? "\r\n" : "\n"
        var format = format
        format.fieldNames = try await store.recordFieldNames(
            owner: owner, matching: query, now: now, limit: ParcelRecordLimits.fields)
        var header = format.excel ? "\u{FEFF}" : ""
        header += Self.header(english: !format.japaneseNames, fieldNames: format.fieldNames) + end
        try file.append(header)
        let pages = try await Pages(store: store, owner: owner, query: query, order: order, now: now)
        // The next page is read (on the store's thread) while this one is turned into lines, in two halves at
        // once (decoding each shipment's JSON is most of the work): the two cores both busy.
        var page = try await pages.read(0, after: 0)
        var index = 0
        while true {
            try Task.checkCancellation()
            let current = page
            let (more, following) = (pages.more(after: index, count: current.count), index + 1)
            async let next: [Watch] = more ? pages.read(following, after: current.last?.id ?? 0) : []
            let half = current.count / 2
            let format = format
            async let first = Self.lines(current[..<half], format: format)
            let second = Self.lines(current[half...], format: format)
            try file.append(await first + second)
            page = try await next
            index += 1
            // In a person's order a slice whose watches all went meanwhile is empty, and the rest still follows.
            guard more, !page.isEmpty || pages.ordered != nil else { break }
        }
        return try file.finish()
    }
}

extension WatchListExport {
    /// The list a page at a time: after the last id read (the order added), or a slice of the ids in a
    /// person's order, read once at the start (8 bytes a watch).
    struct Pages: Sendable {
        let store: any WatchStore
        let owner: WatchOwner
        let query: WatchQuery
        let now: Date
        let ordered: [Int64]?

        init(store: any WatchStore, owner: WatchOwner, query: WatchQuery, order: WatchOrder?, now: Date) async throws {
            (self.store, self.owner, self.query, self.now) = (store, owner, query, now)
            if let order {
                ordered = try await store.watchIDs(
                    owner: owner, matching: query, ordered: order, limit: WatchLimits.maxWatchesPerOwnerSetting, now: now)
            } else {
                ordered = nil
            }
        }

        func read(_ index: Int, after: Int64) async throws -> [Watch] {
            guard let ordered else {
                return try await store.watches(owner: owner, matching: query, after: after, limit: pageSize, now: now)
            }
            let start = min(ordered.count, index * pageSize)
            return try await store.watches(owner: owner, ids: Array(ordered[start..<min(ordered.count, start + pageSize)]))
        }

        func more(after index: Int, count: Int) -> Bool {
            guard let ordered else { return count == pageSize }
            return (index + 1) * pageSize < ordered.count
        }
    }

    /// The sheet's header: the watch's own columns, the tracking columns, the family the list counts it in
    /// (`returning` for a parcel on its way back, whatever its status says), the record's columns (named as the
    /// import recognises them, so a download read back keeps every part) and the sheet's own kept columns (the
    /// CLI's `list --csv` too), in English or Japanese.
    public static func header(english: Bool, fieldNames: [String] = []) -> String {
        let own = english ? ["number", "label", "active", "checked_at"] : ["送り状番号", "メモ", "追跡中", "確認日時"]
        return CSVLine.make(
            own + TrackingColumns.names(english: english) + [english ? "family" : "分類"]
                + RecordColumns.names(english: english) + fieldNames,
            excel: false)
    }

    /// One watch's row, without its line end: the status and carrier in English or Japanese, formulas written as
    /// text, and with `excel` the number kept whole by Excel.
    public static func row(
        _ watch: Watch, english: Bool, excel: Bool = false, japaneseNames: Bool? = nil, fieldNames: [String] = []
    ) -> String {
        let tracking =
            watch.latest?.shipment.map {
                TrackingColumns.cells(
                    for: $0, english: english, known: watch.carrier, carrierNamesEnglish: !(japaneseNames ?? !english))
            } ?? TrackingColumns.cells(error: "")
        let cells =
            [
                watch.number.digits, watch.label ?? "", watch.active ? "true" : "false",
                watch.checkedAt.map { JapanDateTime($0).iso8601 } ?? "",
            ] + tracking + [watch.family?.rawValue ?? ""] + RecordColumns.cells(of: watch.record, fieldNames: fieldNames)
        return CSVLine.make(cells, excel: excel)
    }

    /// The CSV lines of `watches`.
    static func lines(_ watches: ArraySlice<Watch>, format: Format) -> String {
        let end = format.excel ? "\r\n" : "\n"
        var text = ""
        for watch in watches {
            text +=
                row(
                    watch, english: format.english, excel: format.excel, japaneseNames: format.japaneseNames,
                    fieldNames: format.fieldNames) + end
        }
        return text
    }
}

/// A temporary file with no name (unlinked as soon as it is made), written from the start and then handed
/// over for reading.
final class ExportFile {
    private var descriptor: Int32
    private var size: UInt64 = 0

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/kuroneko-export-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw ExportFailure.cannotCreate(errno) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }

    func append(_ text: String) throws {
        var text = text
        try text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw ExportFailure.cannotWrite(errno) }
                offset += written
            }
        }
        size += UInt64(text.utf8.count)
    }

    /// The file, from its start, owned by the response from now on.
    func finish() throws -> ResponseFile {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw ExportFailure.cannotWrite(errno) }
        let file = ResponseFile(descriptor: descriptor, size: size)
        descriptor = -1
        return file
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }
}

/// The temporary file of an export could not be made or written (a full disk, a missing temporary
/// directory).
enum ExportFailure: Error, CustomStringConvertible {
    case cannotCreate(Int32)
    case cannotWrite(Int32)

    var description: String {
        switch self {
        case .cannotCreate(let code):
            "the export's temporary file could not be made: \(String(cString: strerror(code)))"
        case .cannotWrite(let code):
            "the export's temporary file could not be written: \(String(cString: strerror(code)))"
        }
    }
}
