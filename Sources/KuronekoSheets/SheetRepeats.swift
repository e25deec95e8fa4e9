import Foundation
import Kuroneko
import KuronekoStore

/// The numbers that stand on more than one row of a sheet, from a first reading of all of it: rows of one recipient
/// are one parcel with several order lines (their references listed together); rows that name different recipients
/// make the number refused, never one row's recipient with another's order. Bounded by the sheet (16 MiB at most).
public struct SheetRepeats {
    public init() {}

    /// The most rows of one number kept to be named (the rest counted).
    static let rowsNamed = 5
    private var first: [TrackingNumber: (row: Int, recipient: ParcelRecord.Recipient?)] = [:]
    /// Each repeated number's first ``rowsNamed`` rows, and how many it stands on.
    private var rows: [TrackingNumber: (named: [Int], count: Int)] = [:]
    /// Numbers whose rows name different recipients.
    private var refusedNumbers: Set<TrackingNumber> = []
    /// Each repeated number's references, in the order their rows came, each once.
    private(set) var references: [TrackingNumber: [String]] = [:]

    /// Notes a row's number and record.
    public mutating func note(_ number: TrackingNumber, row: Int, record: ParcelRecord?) {
        if let reference = record?.reference, references[number]?.contains(reference) != true {
            references[number, default: []].append(reference)
        }
        guard let earlier = first[number] else {
            first[number] = (row, record?.recipient)
            return
        }
        var seen = rows[number] ?? ([earlier.row], 1)
        if seen.named.count < Self.rowsNamed { seen.named.append(row) }
        seen.count += 1
        rows[number] = seen
        if Self.differ(earlier.recipient, record?.recipient) { refusedNumbers.insert(number) }
    }

    /// For a number whose rows name different recipients, those rows in words (`2, 4`; `2, 4, 6, 8, 10 and 3
    /// more`); `nil` for any other number.
    public func refusedRows(of number: TrackingNumber) -> String? {
        guard refusedNumbers.contains(number), let seen = rows[number] else { return nil }
        let named = seen.named.map(String.init).joined(separator: ", ")
        return seen.count > seen.named.count ? named + " and \(seen.count - seen.named.count) more" : named
    }

    /// How many numbers came on more than one row.
    public var repeatedNumbers: Int { rows.count }

    /// The references of a number's rows together (`A-1, A-2`), within the record's bound; `nil` for a number on
    /// one row or whose rows give one reference.
    public func listedReference(of number: TrackingNumber) -> String? {
        guard let all = references[number], all.count > 1 else { return nil }
        var listed = ""
        for reference in all {
            let next = listed.isEmpty ? reference : listed + ", " + reference
            guard next.count <= ParcelRecordLimits.referenceLength - 2 else { return listed + ", …" }
            listed = next
        }
        return listed
    }

    /// Whether two rows name different recipients: a part both give (name, e-mail, telephone, postcode) differs.
    static func differ(_ first: ParcelRecord.Recipient?, _ second: ParcelRecord.Recipient?) -> Bool {
        func differs(_ one: String?, _ other: String?) -> Bool {
            guard let one, let other else { return false }
            return one != other
        }
        return differs(first?.name, second?.name) || differs(first?.email, second?.email)
            || differs(first?.telephone, second?.telephone) || differs(first?.postcode, second?.postcode)
    }
}
