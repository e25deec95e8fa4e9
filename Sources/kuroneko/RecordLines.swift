import Foundation
import KuronekoStore

/// A parcel record as `kuroneko show` prints it: one part a line, the parts not known left out.
enum RecordLines {
    static func lines(_ record: ParcelRecord?, english: Bool) -> [String] {
        guard let record else { return [] }
        let recipient = record.recipient
        // The postcode, then the address (after its prefecture when it does not begin with it), else the prefecture.
        var place = recipient?.address ?? recipient?.prefecture
        if let street = recipient?.address, let prefecture = recipient?.prefecture, !street.hasPrefix(prefecture) {
            place = prefecture + street
        }
        let address = [recipient?.postcode.map { "〒" + $0 }, place].compactMap { $0 }
        let parts: [(String, String, String?)] = [
            ("reference", "注文番号", record.reference),
            ("recipient", "お届け先", recipient?.name),
            ("telephone", "電話番号", recipient?.telephone),
            ("e-mail", "メール", recipient?.email),
            ("address", "住所", address.isEmpty ? nil : address.joined(separator: " ")),
            ("shipped on", "出荷日", record.shippedOn),
            ("note", "メモ", record.note?.replacingOccurrences(of: "\n", with: " / ")),
            ("handled", "対応済み", record.handled.map { "\($0.at) (\($0.by))" }),
        ]
        return parts.compactMap { inEnglish, inJapanese, value in
            value.map { "  \(english ? inEnglish : inJapanese): \($0)" }
        } + record.fields.map { "  \($0.name): \($0.value)" }
    }
}
