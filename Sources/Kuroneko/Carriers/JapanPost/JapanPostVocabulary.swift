import Foundation

/// What Japan Post's history labels mean, in Japanese and English (docs/SCHEMA.md lists them). Exact labels
/// only; anything else is `unknown`, its label still reported as written.
enum JapanPostVocabulary {
    struct Meaning: Sendable {
        let code: StatusCode
        let english: String?
        /// The parcel will not change any more (delivered, returned to its sender).
        var isFinal = false
    }

    private static let table: [String: Meaning] = {
        var table: [String: Meaning] = [:]
        func add(_ code: StatusCode, final: Bool = false, _ entries: [(String, String)]) {
            for (japanese, english) in entries {
                table[japanese] = Meaning(code: code, english: english, isFinal: final)
                table[english] = Meaning(code: code, english: english, isFinal: final)
            }
        }
        add(.infoReceived, [("引受", "Posting/Collection")])
        add(
            .inTransit,
            [
                ("通過", "En route"), ("中継", "En route (relay)"), ("到着", "Processing at delivery Post Office"),
                ("国際交換局に到着", "Arrival at outward office of exchange"),
                ("国際交換局から発送", "Dispatch from outward office of exchange"),
                ("通関手続中", "In Customs"), ("税関検査のため税関へ提示", "Item presented to import Customs"),
                ("配達希望受付", "Delivery request accepted"), ("転送", "Forwarded"),
                ("お届け先 休日のため保管", "Held: the addressee is closed"),
            ])
        for english in [
            "Arrival at inward office of exchange", "Departure from inward office of exchange",
            "Item held at inward Office of Exchange", "Item out of sorting centre", "Held by import Customs",
            "Item returned from import Customs", "Transported in bond", "Arrived in bond",
        ] {
            table[english] = Meaning(code: .inTransit, english: english)
        }
        add(
            .outForDelivery,
            [("持ち出し中", "Allocated to delivery staff"), ("配達局から出発", "Item out for physical delivery")])
        add(
            .delivered, final: true,
            [("お届け先にお届け済み", "Final delivery"), ("窓口でお渡し", "Final delivery - Collected at counter")])
        table["お届け済み"] = Meaning(code: .delivered, english: "Final delivery", isFinal: true)
        add(.availableForPickup, [("保管", "Retention"), ("コンビニエンスストアに引渡", "Handed to a convenience store")])
        add(.attemptFailed, [("ご不在のため持ち戻り", "Absence. Attempted delivery")])
        add(.exception, [("調査中", "Under investigation")])
        add(.returned, [("返送", "Return to Sender")])
        add(.returned, final: true, [("差出人に返送済み", "Returned to Sender")])
        return table
    }()

    static func meaning(of label: String) -> Meaning {
        table[label] ?? Meaning(code: .unknown, english: nil)
    }

    /// The message row of the 照会結果 table: not found, or a number of the wrong length.
    static func messageCode(_ message: String) -> StatusCode? {
        if message.contains("見つかりません") || message.localizedCaseInsensitiveContains("not found") {
            return .notFound
        }
        if message.contains("桁数") || message.localizedCaseInsensitiveContains("number of digits") {
            return .invalidNumber
        }
        return nil
    }
}

/// The offset of the wall clock a Japan Post history row was written in: Japan for a prefecture (in
/// Japanese or romanised) or JAPAN; otherwise the one zone of the named country, daylight saving applied;
/// `nil` for a country of several zones or one not listed (the row keeps its text, without a time).
enum JapanPostZones {
    private static let romanisedPrefectures: Set<String> = [
        "HOKKAIDO", "AOMORI", "IWATE", "MIYAGI", "AKITA", "YAMAGATA", "FUKUSHIMA", "IBARAKI", "TOCHIGI", "GUNMA",
        "SAITAMA", "CHIBA", "TOKYO", "KANAGAWA", "NIIGATA", "TOYAMA", "ISHIKAWA", "FUKUI", "YAMANASHI", "NAGANO",
        "GIFU", "SHIZUOKA", "AICHI", "MIE", "SHIGA", "KYOTO", "OSAKA", "HYOGO", "NARA", "WAKAYAMA", "TOTTORI",
        "SHIMANE", "OKAYAMA", "HIROSHIMA", "YAMAGUCHI", "TOKUSHIMA", "KAGAWA", "EHIME", "KOCHI", "FUKUOKA", "SAGA",
        "NAGASAKI", "KUMAMOTO", "OITA", "MIYAZAKI", "KAGOSHIMA", "OKINAWA", "JAPAN",
    ]

    /// Countries with one zone, by the name the page prints (English upper case, or Japanese).
    private static let countries: [String: String] = [
        "UNITED KINGDOM": "Europe/London", "イギリス": "Europe/London", "IRELAND": "Europe/Dublin",
        "FRANCE": "Europe/Paris", "フランス": "Europe/Paris", "GERMANY": "Europe/Berlin", "ドイツ": "Europe/Berlin",
        "ITALY": "Europe/Rome", "SPAIN": "Europe/Madrid", "NETHERLANDS": "Europe/Amsterdam",
        "BELGIUM": "Europe/Brussels", "SWITZERLAND": "Europe/Zurich", "AUSTRIA": "Europe/Vienna",
        "SWEDEN": "Europe/Stockholm", "NORWAY": "Europe/Oslo", "DENMARK": "Europe/Copenhagen",
        "FINLAND": "Europe/Helsinki", "POLAND": "Europe/Warsaw", "MALTA": "Europe/Malta",
        "CHINA": "Asia/Shanghai", "中国": "Asia/Shanghai", "KOREA": "Asia/Seoul", "韓国": "Asia/Seoul",
        "KOREA (REP.)": "Asia/Seoul", "TAIWAN": "Asia/Taipei", "台湾": "Asia/Taipei", "HONG KONG": "Asia/Hong_Kong",
        "香港": "Asia/Hong_Kong", "SINGAPORE": "Asia/Singapore", "シンガポール": "Asia/Singapore",
        "THAILAND": "Asia/Bangkok", "タイ": "Asia/Bangkok", "VIETNAM": "Asia/Ho_Chi_Minh", "VIET NAM": "Asia/Ho_Chi_Minh",
        "PHILIPPINES": "Asia/Manila", "MALAYSIA": "Asia/Kuala_Lumpur", "INDIA": "Asia/Kolkata",
        "NEW ZEALAND": "Pacific/Auckland",
    ]

    /// Where `place` (the 県名等 cell) keeps Japan time.
    static func isJapan(_ place: String) -> Bool {
        place.hasSuffix("都") || place.hasSuffix("道") || place.hasSuffix("府") || place.hasSuffix("県")
            || romanisedPrefectures.contains(place.uppercased()) || place == "日本"
    }

    /// The offset in minutes of a wall-clock time at `place`, or `nil` when it cannot be known.
    static func offsetMinutes(at place: String, year: Int, month: Int, day: Int, hour: Int, minute: Int) -> Int? {
        if place.isEmpty || isJapan(place) { return 540 }
        guard let identifier = countries[place.uppercased()] ?? countries[place],
            let zone = TimeZone(identifier: identifier)
        else { return nil }
        let days = JapanDateTime.daysSinceEpoch(year: year, month: month, day: day)
        let wallClock = Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60))
        // The wall clock read as UTC, less the zone's standard offset, is within an hour of the instant.
        let offset = zone.secondsFromGMT(for: wallClock.addingTimeInterval(-Double(zone.secondsFromGMT(for: wallClock))))
        return offset / 60
    }
}
