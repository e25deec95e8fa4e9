import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoStore
import Synchronization

/// The whole narrowed list as CSV, written a page at a time into an unlinked temporary file that the server
/// then sends and closes: the server's memory holds one page, whatever the list's size. At most
/// ``concurrentExports`` are written at once; another is answered 503 with `Retry-After`.
struct WatchListExport: Sendable {
    /// Rows read from the store at a time.
    static let pageSize = 1_000
    static let concurrentExports = 2

    let store: any WatchStore
    let gate: ExportGate

    struct Format: Sendable {
        let english: Bool
        /// A UTF-8 BOM and CRLF, for Japanese Excel.
        let excel: Bool
    }

    /// Writes the export; the file is the response's body.
    func write(owner: WatchOwner, query: WatchQuery, format: Format, now: Date) async throws -> ResponseFile {
        guard gate.enter() else {
            throw RouteProblem.busy(
                "\(Self.concurrentExports) exports are being written already; try again in a moment")
        }
        defer { gate.leave() }
        let file = try ExportFile()
        let end = format.excel ? "\r\n" : "\n"
        var header = format.excel ? "\u{FEFF}" : ""
        header += (["number", "label", "active", "checked_at"] + TrackingColumns.names).joined(separator: ",") + end
        try file.append(header)
        var cursor: Int64 = 0
        let store = self.store
        while true {
            try Task.checkCancellation()
            let after = cursor
            let page = try await store.watches(owner: owner, matching: query, after: after, limit: Self.pageSize, now: now)
            var text = ""
            for watch in page {
                let tracking =
                    watch.latest?.shipment.map { TrackingColumns.cells(for: $0, english: format.english) }
                    ?? TrackingColumns.cells(error: "")
                let cells =
                    [
                        watch.number.digits, watch.label ?? "", watch.active ? "true" : "false",
                        watch.checkedAt.map { JapanDateTime($0).iso8601 } ?? "",
                    ] + tracking
                text += cells.map(TrackingColumns.quoted).joined(separator: ",") + end
            }
            try file.append(text)
            guard page.count == Self.pageSize, let last = page.last else { break }
            cursor = last.id
        }
        return try file.finish()
    }
}

/// How many exports are being written: a counter with a ceiling.
final class ExportGate: Sendable {
    private let running = Mutex(0)
    let limit: Int

    init(limit: Int = WatchListExport.concurrentExports) {
        self.limit = limit
    }

    func enter() -> Bool {
        running.withLock { running in
            guard running < limit else { return false }
            running += 1
            return true
        }
    }

    func leave() {
        running.withLock { $0 -= 1 }
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
