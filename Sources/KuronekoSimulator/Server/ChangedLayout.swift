import Foundation
import Kuroneko

/// What `changed_layout` does to each carrier's page, as if the carrier had redesigned it: the parts the
/// parser looks for are renamed (Yamato's parcel blocks, Sagawa's result list, Japan Post's detail table),
/// and the redesign shows the sender by name with a telephone number, as a real page might, so that what an
/// operator keeps of the page can be checked for personal data.
enum ChangedLayout {
    /// The sender the changed page names (nobody real).
    static let senderName = "黒猫 花子"
    static let senderTelephone = "03-5555-0123"

    static func apply(to page: Data, carrier: Carrier) -> Data {
        switch carrier {
        case .yamato:
            return Data(
                String(decoding: page, as: UTF8.self)
                    .replacingOccurrences(of: "parts-tracking-invoice-block", with: "parts-tracking-result-card")
                    .replacingOccurrences(of: "</body>", with: sender + "</body>").utf8)
        case .sagawa:
            // Windows-31J: only ASCII is replaced, and the sender is written as character references.
            return replacing(
                replacing(page, "table_okurijo_index", with: "table_okurijo_result"), "</body>",
                with: referenced(sender) + "</body>")
        case .japanPost:
            return Data(
                String(decoding: page, as: UTF8.self)
                    .replacingOccurrences(of: "summary=\"配達状況詳細\"", with: "summary=\"お届け状況\"")
                    .replacingOccurrences(of: "</body>", with: sender + "</body>").utf8)
        default:
            return SimulatedCarriers.entry(for: carrier)?.changedLayout(page) ?? page
        }
    }

    static var sender: String {
        "<dl class=\"sender\"><dt>ご依頼主</dt><dd>\(senderName) 様</dd><dt>電話番号</dt><dd>\(senderTelephone)</dd></dl>"
    }

    /// Text as ASCII, each character outside it as a decimal character reference.
    static func referenced(_ text: String) -> String {
        text.unicodeScalars.map { $0.isASCII ? String($0) : "&#\($0.value);" }.joined()
    }

    static func replacing(_ data: Data, _ target: String, with replacement: String) -> Data {
        let needle = Data(target.utf8)
        var result = Data()
        var rest = data[...]
        while let range = rest.range(of: needle) {
            result += rest[..<range.lowerBound]
            result += Data(replacement.utf8)
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
