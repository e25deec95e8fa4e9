/// What Yamato's status labels mean: their code and an English label.
///
/// The table is documented in `docs/SCHEMA.md`: official English wording where
/// Yamato publishes one, else the documented meaning.
enum StatusVocabulary {
    struct Meaning: Sendable {
        let code: StatusCode
        let english: String?
    }

    /// The meaning of a label; `unknown` (with no English) for a label nobody has catalogued.
    static func meaning(of label: String) -> Meaning {
        let normalized = normalize(label)
        if let exact = exactLabels[normalized] {
            return exact
        }
        for family in families where normalized.hasPrefix(family.prefix) {
            return family.meaning
        }
        return Meaning(code: .unknown, english: nil)
    }

    /// The label with half-width parentheses and the comma of the help page's wording made full-width,
    /// the form today's page uses.
    static func normalize(_ label: String) -> String {
        // Most labels need nothing: look at the bytes before paying for Characters. 0x81 only occurs inside
        // multi-byte sequences, among them the one of "、" (E3 80 81).
        guard label.utf8.contains(where: { $0 == UInt8(ascii: "(") || $0 == UInt8(ascii: ")") || $0 == 0x81 })
        else { return label }
        var result = ""
        result.reserveCapacity(label.utf8.count)
        for character in label {
            switch character {
            case "(": result.append("（")
            case ")": result.append("）")
            case "、": result.append("・")
            default: result.append(character)
            }
        }
        return result
    }

    /// Running late (a reason may follow in brackets, as in 遅延中（悪天候）); still moving.
    static let delayedLabel = "遅延中"
    /// The return leg has started; rows after it belong to the way back to the sender.
    static let returnStartedLabel = "返品"
    /// The return reached the sender: nothing more will happen.
    static let returnCompletedLabel = "返品完了"

    /// Every catalogued label with its meaning, in the order of `docs/SCHEMA.md`'s table.
    static let catalogue: [(label: String, meaning: Meaning)] = {
        var table: [(label: String, meaning: Meaning)] = []
        func add(_ code: StatusCode, _ entries: [(String, String)]) {
            for (label, english) in entries {
                table.append((label, Meaning(code: code, english: english)))
            }
        }
        add(
            .infoReceived,
            [
                ("荷物受付", "Shipment Accepted"),
                ("出荷指示", "Shipping Instruction Received"),
                ("荷受け", "Picked Up"),
                ("海外荷物受付", "International Shipment Accepted"),
            ])
        add(
            .inTransit,
            [
                ("発送", "Departure Scan"),
                ("発送済み", "Departure Scan"),
                ("輸送中", "In Transit"),
                ("作業店通過", "In Transit"),
                ("中継店通過", "In Transit (Relay Point Passed)"),
                ("航空搭載", "Loaded on Aircraft"),
                ("陸・海上切替え", "Transport Mode Changed (Land/Sea)"),
                ("輸送経路修正", "Route Corrected"),
                ("転送", "Forwarded to Another Address"),
                ("配達店到着", "Arrival Scan"),
                ("配達担当店保管中", "Held at Delivery Office"),
                ("配達日・時間帯指定（保管中）", "Held for Requested Delivery Date and Time"),
                ("配達準備中", "Preparing for Delivery"),
                // Forecasts for the date in お届け予定, shown for days before it: not yet on the truck.
                ("配達予定", "Delivery Scheduled"),
                ("投函予定", "Mailbox Delivery Scheduled"),
                (delayedLabel, "Delayed"),
                ("海外発送", "Dispatched Overseas"),
                ("国内到着", "Arrived in Japan"),
                ("引渡", "Handed Over"),
                ("委託先引渡", "Handed to Partner Carrier"),
                ("依頼受付（再配達）", "Request Accepted (redelivery)"),
                ("依頼受付（日・時間帯変更）", "Request Accepted (alternate delivery schedule arrangement)"),
                ("依頼受付（店頭受取）", "Request Accepted (pick up at Yamato's location)"),
                ("依頼受付（置き場所変更）", "Request Accepted (drop-off place change)"),
                ("依頼受付（保管）", "Request Accepted (hold at Yamato)"),
            ])
        add(
            .outForDelivery,
            [
                ("配達中", "Out for Delivery"),
                ("持ち出し中", "Out for Delivery"),
            ])
        add(
            .availableForPickup,
            [
                ("ご来店予定（保管中）", "Hold at Yamato (pickup at Yamato's office)"),
                ("保管中", "Held for Pickup"),
                ("保管中（ご指定店）", "Held for Pickup at Chosen Location"),
                ("一時保管中", "Temporarily Held"),
            ])
        add(
            .attemptFailed,
            [
                ("持戻", "Brought Back, Not Delivered"),
                ("持戻（ご不在）", "Hold at Yamato (Consignee Not Available)"),
                ("持戻（休業）", "Brought Back (Business Closed)"),
                ("持戻（転居）", "Brought Back (Consignee Moved)"),
                ("持戻（住所不明）", "Brought Back (Address Unknown)"),
                ("持戻（ポスト投函不可）", "Brought Back (Mailbox Unusable)"),
                ("持戻（受取ご辞退）", "Brought Back (Delivery Refused)"),
                ("持戻（置き配不能）", "Brought Back (Could Not Be Left Unattended)"),
                // Words after the bracket give the reason the unattended drop failed.
                ("持戻（置き配不能）サイズオーバー", "Brought Back (Too Large to Leave Unattended)"),
            ])
        add(
            .delivered,
            [
                ("配達完了", "Delivered"),
                ("配達完了（宅配ボックス）", "Delivered (Parcel Locker)"),
                ("配達完了（置き配）", "Delivered (Left Unattended)"),
                ("投函完了", "Delivered to Mailbox"),
                ("お客様引渡完了", "Handed to Customer"),
            ])
        add(
            .exception,
            [
                ("調査中", "Under Investigation"),
                ("調査中（ご不在）", "Under Investigation (Consignee Not Available)"),
                ("調査中（転居先不明）", "Under Investigation (New Address Unknown)"),
                ("調査中（受取ご辞退）", "Under Investigation (Delivery Refused)"),
            ])
        add(
            .returned,
            [
                (returnStartedLabel, "Returning to Sender"),
                (returnCompletedLabel, "Returned to Sender"),
            ])
        add(.notFound, [("伝票番号未登録", "Tracking Number Not Registered")])
        add(.invalidNumber, [("伝票番号誤り", "Invalid Tracking Number")])
        return table
    }()

    private static let exactLabels: [String: Meaning] = Dictionary(
        catalogue.map { ($0.label, $0.meaning) }, uniquingKeysWith: { first, _ in first })

    /// Labels that vary after a common stem; an exact label above always wins over its family.
    static let families: [(prefix: String, meaning: Meaning)] = [
        // 遅延中（悪天候）: the reason stays in the Japanese label; the English says only that it is late.
        (delayedLabel + "（", Meaning(code: .inTransit, english: "Delayed")),
        ("持戻", Meaning(code: .attemptFailed, english: "Brought Back, Not Delivered")),
        ("配達完了", Meaning(code: .delivered, english: "Delivered")),
        ("調査中", Meaning(code: .exception, english: "Under Investigation")),
        ("依頼受付", Meaning(code: .inTransit, english: "Request Accepted")),
        ("保管中", Meaning(code: .availableForPickup, english: "Held for Pickup")),
    ]
}
