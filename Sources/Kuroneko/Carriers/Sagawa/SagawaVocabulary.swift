/// What Sagawa's state and history labels mean (docs/SCHEMA.md lists them): exact labels first, then
/// families by prefix or suffix; anything else is `unknown`, its label still reported as written.
enum SagawaVocabulary {
    typealias Meaning = CarrierWordMeaning

    private static let exact: [String: Meaning] = [
        "集荷": Meaning(code: .infoReceived, english: "Picked up"),
        "荷物受付": Meaning(code: .infoReceived, english: "Received at the office"),
        "輸送中": Meaning(code: .inTransit, english: "In transit"),
        "配達店到着": Meaning(code: .inTransit, english: "Arrived at the delivery office"),
        "幹線輸送中": Meaning(code: .inTransit, english: "In transit between centres"),
        "配達中": Meaning(code: .outForDelivery, english: "Out for delivery"),
        "保管中": Meaning(code: .availableForPickup, english: "Held at the office"),
        "持戻り": Meaning(code: .attemptFailed, english: "Brought back"),
        "ご不在": Meaning(code: .attemptFailed, english: "Recipient absent"),
        "長期不在": Meaning(code: .attemptFailed, english: "Recipient absent for a long time"),
        "受取辞退": Meaning(code: .exception, english: "Refused by the recipient"),
        "受取拒否": Meaning(code: .exception, english: "Refused by the recipient"),
        "配達完了": Meaning(code: .delivered, english: "Delivered"),
        "調査中": Meaning(code: .exception, english: "Under investigation"),
        "返品": Meaning(code: .returned, english: "Returned"),
        "返送": Meaning(code: .returned, english: "Returned to the sender"),
    ]

    /// The meaning of a label with its arrow (「↓」「⇒」「↑」) and spaces already stripped.
    static func meaning(of label: String) -> Meaning {
        if let meaning = exact[label] { return meaning }
        if label.hasPrefix("配達完了") || label.hasSuffix("引渡完了") { return Meaning(code: .delivered, english: "Delivered") }
        if label.hasPrefix("持戻") { return Meaning(code: .attemptFailed, english: "Brought back") }
        if label.hasPrefix("調査中") { return Meaning(code: .exception, english: "Under investigation") }
        return Meaning(code: .unknown, english: nil)
    }

    /// 該当なし: the sentence beside it tells a number not registered (yet, or any more) from a wrong one.
    static let noMatchLabel = "該当なし"
    static func noMatchCode(sentence: String) -> StatusCode? {
        if sentence.contains("登録されておりません") { return .notFound }
        if sentence.contains("お確かめ") { return .invalidNumber }
        return nil
    }
}
