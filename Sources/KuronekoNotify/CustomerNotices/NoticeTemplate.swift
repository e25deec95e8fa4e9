import Foundation
import Kuroneko

/// A shop's notice: a subject line and a body with fields in double braces (`{{number}}`). A body line with a
/// field that has no value for this parcel is left out (no 「ご注文番号：」 without a number); the footer the
/// law asks for (the shop, its address and contact, the stop link) is always added after the body.
public struct NoticeTemplate: Sendable, Hashable {
    public var subject: String
    public var body: String

    public init(subject: String, body: String) {
        self.subject = subject
        self.body = body
    }

    /// The fields a template may name.
    public enum Field: String, Sendable, CaseIterable {
        /// 「山田 太郎 様」, or 「お客様」 without a name; in English "Dear …,".
        case recipient
        case shop
        /// The shop's order or management number.
        case reference
        case carrier
        /// The number as the carrier prints it (`4912-3456-7890`).
        case number
        /// The milestone in a few words (「商品を発送しました」).
        case title
        /// The milestone in a sentence, with the carrier's latest status, place and time.
        case status
        /// The planned day and window (「12月5日 14:00〜16:00」).
        case planned
        /// The parcel on the carrier's site.
        case link
        /// After a missed delivery: until when it is kept, and how to ask for it again.
        case nextStep = "next_step"
        case contact
        case address
    }

    /// What is wrong with the template: a field it names that does not exist, or braces left open.
    public func problem() -> (part: String, message: String)? {
        for (part, text) in [("subject", subject), ("body", body)] {
            var rest = Substring(text)
            while let open = rest.range(of: "{{") {
                guard let close = rest[open.upperBound...].range(of: "}}") else {
                    return (part, "opens {{ without closing it; write a field as {{number}}")
                }
                let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
                guard Field(rawValue: name) != nil else {
                    return (
                        part,
                        "names the field {{\(name.prefix(40))}}, which does not exist; the fields are "
                            + Field.allCases.map(\.rawValue).joined(separator: ", ")
                    )
                }
                rest = rest[close.upperBound...]
            }
        }
        return nil
    }

    /// The template filled: `values` by field; a body line naming a field without a value is left out, and so
    /// is a blank line that would follow another.
    static func fill(_ text: String, _ values: [Field: String], dropEmptyLines: Bool) -> String {
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var out = ""
            var rest = Substring(line)
            var missing = false
            while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
                out += rest[..<open.lowerBound]
                let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
                let value = Field(rawValue: name).flatMap { values[$0] } ?? ""
                if value.isEmpty { missing = true }
                out += value
                rest = rest[close.upperBound...]
            }
            out += rest
            if dropEmptyLines, missing { continue }
            if dropEmptyLines, out.trimmingCharacters(in: .whitespaces).isEmpty, lines.last?.isEmpty ?? true { continue }
            lines.append(out.trimmingCharacters(in: .whitespaces).isEmpty ? "" : out)
        }
        while lines.last == "" { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    /// Kuroneko's own notice in each language.
    public static func standard(_ language: AnnouncementLanguage) -> NoticeTemplate {
        switch language {
        case .japanese:
            NoticeTemplate(
                subject: "【{{shop}}】{{title}}（{{carrier}} {{number}}）",
                body: """
                    {{recipient}}

                    いつも{{shop}}をご利用いただき、ありがとうございます。
                    {{status}}

                    ご注文番号：{{reference}}
                    配送会社：{{carrier}}
                    お問い合わせ伝票番号：{{number}}
                    お届け予定：{{planned}}
                    {{next_step}}

                    配送状況は、こちらからご確認いただけます。
                    {{link}}
                    """)
        case .english:
            NoticeTemplate(
                subject: "[{{shop}}] {{title}} ({{carrier}} {{number}})",
                body: """
                    {{recipient}}

                    Thank you for shopping at {{shop}}.
                    {{status}}

                    Order: {{reference}}
                    Carrier: {{carrier}}
                    Tracking number: {{number}}
                    Planned delivery: {{planned}}
                    {{next_step}}

                    Follow the parcel on the carrier's site:
                    {{link}}
                    """)
        }
    }
}
