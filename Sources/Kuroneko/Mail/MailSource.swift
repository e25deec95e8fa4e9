import Foundation

/// The text of one sender within a mail: the message's own text parts, a forwarded block with its own From
/// line, or an attached message. Numbers are looked for in it, line by line, in NFKC form (full-width digits
/// and colons become ASCII).
struct MailSource {
    let sender: MessageSender?
    /// Each text part's lines, on its own (a carrier named in one part says nothing of another's numbers).
    let sections: [[String]]

    /// The most text read of one mail, its parts and attached messages together (UTF-8 bytes, after HTML is
    /// reduced to text): a shipping notice is a few kilobytes; past this, text is not read.
    static let textRead = 1 << 20

    static func collect(_ message: ShippingMessage, into sources: inout [MailSource]) {
        var textLeft = textRead
        collect(message, into: &sources, textLeft: &textLeft)
    }

    private static func collect(_ message: ShippingMessage, into sources: inout [MailSource], textLeft: inout Int) {
        var sections: [[String]] = []
        var sender = message.from
        var attached: [ShippingMessage] = []
        defer {
            // Messages attached whole come after the text that carries them.
            for inner in attached { collect(inner, into: &sources, textLeft: &textLeft) }
        }
        for part in message.parts where textLeft > 0 {
            var text: String
            switch part {
            case .text(let plain): text = plain
            case .html(let html):
                // HTML is cut first too: its markup may be several times its text, never more than 4 times the budget.
                let markup = html.utf8.count > 4 * textLeft ? String(decoding: html.utf8.prefix(4 * textLeft), as: UTF8.self) : html
                text = MailText.fromHTML(markup)
            case .message(let inner):
                attached.append(inner)
                continue
            }
            // Cut at the budget (a character cut in two becomes U+FFFD, which holds no number).
            if text.utf8.count > textLeft { text = String(decoding: text.utf8.prefix(textLeft), as: UTF8.self) }
            textLeft -= text.utf8.count
            let lines = Self.compatibilityForm(Self.withoutEnclosedNumbers(text), limit: 2 * Self.textRead)
                .split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
            // A forwarded block starts a source of its own, from the sender its From line names.
            var current: [String] = []
            var index = 0
            while index < lines.count {
                let trimmed = lines[index].trimmedOfSpaces
                if sources.count < Self.forwardedBlocksRead, Self.forwardMarkers.contains(where: { trimmed.holds($0) }) {
                    sections.append(current)
                    if !sections.allSatisfy(\.isEmpty) { sources.append(MailSource(sender: sender, sections: sections)) }
                    sections = []
                    current = []
                    sender = nil
                    for line in lines[(index + 1)...].prefix(8) {
                        let field = line.trimmedOfSpaces
                        for prefix in ["From:", "差出人:"] where field.hasPrefix(prefix) {
                            sender = MessageSender(header: String(field.dropFirst(prefix.count)))
                        }
                    }
                } else {
                    current.append(lines[index])
                }
                index += 1
            }
            sections.append(current)
        }
        if sections.contains(where: { !$0.isEmpty }) { sources.append(MailSource(sender: sender, sections: sections)) }
    }

    /// `text` with each enclosed or circled number (①, ⑩, ⑴, ⒈, ❶, ㉑, ㊱) made ○: NFKC would make them plain
    /// digits, and a list numbered ①②③ is not a tracking number.
    static func withoutEnclosedNumbers(_ text: String) -> String {
        func enclosed(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x2460...0x24FF, 0x2776...0x2793, 0x3251...0x325F, 0x32B1...0x32BF, 0x1F100...0x1F10C: true
            default: false
            }
        }
        guard text.unicodeScalars.contains(where: enclosed) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { enclosed($0) ? "○" : $0 }))
    }

    /// `text` in NFKC, at most about `limit` UTF-8 bytes of it. Foundation's normalisation costs more than
    /// linear time on a long run of characters that expand (1 MiB of U+FDFA: 2.2 s), so the text is normalised
    /// in pieces of about 4 KiB, each cut before a character that starts a new combining sequence (a piece of
    /// 16 KiB with none is cut where it stands); Hangul jamo, which combine with one another, are never cut apart.
    static func compatibilityForm(_ text: String, limit: Int) -> String {
        let piece = 4_096
        guard text.utf8.count > piece else { return text.precomposedStringWithCompatibilityMapping }
        let scalars = text.unicodeScalars
        var out = ""
        var start = scalars.startIndex
        var index = start
        var bytes = 0
        func isStart(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.canonicalCombiningClass == .notReordered
                && !(0x1100...0x11FF).contains(scalar.value) && !(0xA960...0xA97F).contains(scalar.value)
                && !(0xD7B0...0xD7FF).contains(scalar.value)
        }
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if bytes >= piece, isStart(scalar) || bytes >= 4 * piece {
                out += String(scalars[start..<index]).precomposedStringWithCompatibilityMapping
                if out.utf8.count >= limit { return out }
                start = index
                bytes = 0
            }
            bytes += UTF8.width(scalar)
            index = scalars.index(after: index)
        }
        return out + String(scalars[start...]).precomposedStringWithCompatibilityMapping
    }

    /// The most senders one mail is split into by its forwarded blocks (past them, a marker is plain text).
    static let forwardedBlocksRead = 20
    static let forwardMarkers = [
        "Forwarded message", "Original Message", "Begin forwarded message", "転送メッセージ", "転送されたメッセージ",
    ]

    // MARK: Words

    static let trackingLabels = [
        "お問い合わせ伝票番号", "お問合せ伝票番号", "お問い合せ伝票番号", "お問い合わせ送り状No", "送り状番号", "送り状No",
        "お荷物伝票番号", "配達伝票番号", "配達受付番号", "お問い合わせ番号", "お問合せ番号", "お問い合せ番号", "伝票番号",
        "追跡番号", "荷物番号", "トラッキング番号", "Tracking number", "tracking number",
        // A slip by the shops' own words: 配送伝票, 発送伝票 (bracketed, `[配送伝票] 4705…`, or after a colon).
        "配送伝票", "発送伝票", "出荷伝票",
    ]
    static let orderLabels = ["ご注文番号", "注文番号", "受注番号", "注文ID", "オーダー番号", "注文No", "ご注文No"]
    /// Labels whose number is never a parcel's: orders, members, coupons, invoices, receipts, reservations,
    /// tickets, product and bar codes, payments and bank accounts, telephones and postcodes, campaign entries.
    static let otherLabels = orderLabels + [
        "会員番号", "会員ID", "お客様番号", "お客様ID", "顧客番号", "商品ID", "商品番号", "商品コード", "型番", "JAN", "ISBN",
        "TEL", "Tel", "tel", "電話", "FAX", "Fax", "〒", "郵便番号", "ポイント", "クーポン", "ギフト", "請求書", "請求番号",
        "領収書", "領収番号", "予約番号", "チケット", "整理番号", "受付番号", "申込番号", "お申込み番号", "申し込み番号",
        "お支払い番号", "支払番号", "支払い番号", "振込", "口座", "カード番号", "シリアル", "認証番号", "確認番号", "管理番号",
        // A campaign's entries and draws (a carrier's own campaign names the carrier beside them).
        "応募番号", "抽選番号", "当選番号", "エントリー番号",
    ]
    /// Tracking labels that other businesses use for their own numbers too (a support ticket's お問い合わせ番号):
    /// evidence only in a mail that names a carrier (in its text, a link or its sender).
    static let sharedLabels = ["お問い合わせ番号", "お問合せ番号", "お問い合せ番号"]
    /// Carrier names (each registered carrier's mail names), in the registry's order; a name of a carrier
    /// Kuroneko does not read maps to `nil`.
    static let carrierNames: [(String, Carrier?)] =
        CarrierRegistry.definitions.flatMap { definition in definition.mail.names.map { ($0, Optional(definition.carrier)) } }
        + [("名鉄運輸", nil), ("トナミ運輸", nil)]
    static let ownDeliveries = [
        ("Amazonがお届け", "Amazon"), ("Amazonでお届け", "Amazon"), ("デリバリープロバイダ", "Amazon"),
        ("Amazon Logistics", "Amazon"), ("ヨドバシエクストリームサービス便", "ヨドバシエクストリームサービス便"),
    ]
    static let shops = [
        ("amazon.co.jp", "Amazon.co.jp"), ("yodobashi.com", "ヨドバシ・ドット・コム"), ("dmm.com", "DMM通販"),
        ("apple.com", "Apple Store"), ("mercari.jp", "メルカリ"), ("mail.yahoo.co.jp", "Yahoo!ショッピング"),
        ("rakuten.co.jp", "楽天市場"),
    ] + CarrierRegistry.definitions.flatMap { definition in definition.mail.senderDomains.map { ($0, definition.name) } }

    var senderCarrier: Carrier? {
        let domain = sender?.domain ?? ""
        return CarrierRegistry.definitions.first { definition in
            definition.mail.senderDomains.contains { domain == $0 || domain.hasSuffix("." + $0) }
        }?.carrier
    }

    var ownDelivery: String? {
        for line in sections.joined() {
            for (marker, who) in Self.ownDeliveries where line.holds(marker) { return who }
        }
        return nil
    }

    /// The shop: a Yamato notice's 「<shop> 様からのお荷物」, a `[ショップ名]` line, the sender's domain, its name.
    var shop: String? {
        for line in sections.joined() {
            if let range = line.place(of: "様からのお荷物") {
                let name = line[..<range.lowerBound].trimmedOfSpaces
                if !name.isEmpty { return String(name.prefix(60)) }
            }
            for label in ["[ショップ名]", "ショップ名:", "店舗名:"] {
                if let range = line.place(of: label) {
                    let name = line[range.upperBound...].trimmedOfSpaces
                    if !name.isEmpty { return String(name.prefix(60)) }
                }
            }
        }
        let domain = sender?.domain ?? ""
        // A shop on Rakuten writes from the market's shop domain under its own name: the shop, not the market.
        if domain == "shop.rakuten.co.jp" || domain.hasSuffix(".shop.rakuten.co.jp"),
            let name = sender?.name?.trimmedOfSpaces, !name.isEmpty
        {
            return String(name.prefix(60))
        }
        for (suffix, name) in Self.shops where domain == suffix || domain.hasSuffix("." + suffix) { return name }
        return sender?.name ?? sender?.address
    }

    /// The first order number after an order label.
    var order: String? {
        for line in sections.joined() {
            for label in Self.orderLabels {
                guard let range = line.place(of: label) else { continue }
                let rest = line[range.upperBound...].drop { " :]】)".contains($0) }
                let token = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
                if token.count >= 4 { return String(token) }
            }
        }
        return nil
    }

    static let productLabels = ["ご注文商品", "商品名", "品名"]

    /// The first product named after a product label on its line (at most 40 characters).
    var product: String? {
        for line in sections.joined() {
            for label in Self.productLabels {
                guard let range = line.place(of: label) else { continue }
                // The label as a heading (商品名：…, 【品名】…), not a word in a sentence (ご注文商品はヤマト運輸で…).
                let separators: Set<Character> = [" ", ":", "：", "]", "】", ")", "）", "\t", "\u{3000}"]
                let after = line[range.upperBound...]
                guard let next = after.first, separators.contains(next) else { continue }
                let name = after.drop { separators.contains($0) }.trimmedOfSpaces
                // A name, not a number, a price or a sentence (品名: 1点, ¥1,200).
                guard name.count >= 2, let first = name.first, !first.isNumber, !"¥￥$".contains(first),
                    !name.contains("。")
                else { continue }
                return String(name.prefix(40))
            }
        }
        return nil
    }

    // MARK: Numbers

    /// The most number-like runs looked at in one sender's text (a shipping mail has a few dozen), and how far
    /// before a number its label or carrier is looked for on its line (in characters).
    static let tokensPerSource = 2_000
    static let nearBefore = 200

    /// The parcels of this text, in the order they first appear; at most `limit` (the rest are not looked at).
    /// Every step is linear in the text: a mail of many numbers costs no more per number than a mail of one.
    func parcels(limit: Int = .max) -> [FoundParcel] {
        let links = MailLinks.numbers(in: sections.joined().joined(separator: "\n"))
        var linkOf: [TrackingNumber: MailLinks.Link] = [:]
        for link in links where linkOf[link.number] == nil { linkOf[link.number] = link }
        var found = FoundParcels(limit: limit)
        let shop = self.shop
        let order = self.order
        let product = self.product
        let senderCarrier = self.senderCarrier
        let firstCarrierNamed = self.firstCarrierNamed
        let carrierInMail = firstCarrierNamed != nil || senderCarrier != nil || !links.isEmpty
        func add(_ number: TrackingNumber, carrier: Carrier?, evidence: Set<MailEvidence>) {
            found.add(
                FoundParcel(
                    number: number, carrier: carrier, shop: shop, order: order,
                    evidence: MailEvidence.allCases.filter(evidence.contains), product: product))
        }
        var tokensLeft = Self.tokensPerSource
        for lines in sections where !found.full && tokensLeft > 0 {
            // What each line names is worked out once, however many numbers look at it.
            var namedOnLine: [Int: Named?] = [:]
            func named(onLine index: Int) -> Named? {
                if let known = namedOnLine[index] { return known }
                let found = Self.named(in: lines[index])
                namedOnLine[index] = .some(found)
                return found
            }
            for (index, line) in lines.enumerated() where !found.full && tokensLeft > 0 {
                let tokens = NumberToken.all(in: line)
                guard !tokens.isEmpty else { continue }
                let previous = Self.previousLine(lines, index)
                let trimmed = line.trimmedOfSpaces
                for token in tokens.prefix(tokensLeft) {
                    tokensLeft -= 1
                    guard let number = try? TrackingNumber(parsing: token.text) else { continue }
                    // Labels and names stand close to their number: the text just before it is what is read.
                    let start = line.index(token.range.lowerBound, offsetBy: -Self.nearBefore, limitedBy: line.startIndex)
                    let before = String(line[(start ?? line.startIndex)..<token.range.lowerBound])
                    var evidence = Set<MailEvidence>()
                    let linked = linkOf[number]
                    if linked != nil { evidence.insert(.link) }
                    let alone = trimmed == token.text
                    if Self.labelled(before: before, alone: alone, previous: previous, sharedCounts: carrierInMail) {
                        evidence.insert(.label)
                    } else if linked == nil, Self.otherLabelled(before) || (alone && previous.map(Self.otherLabelled) == true) {
                        // A number after an order, member, invoice … label, or alone on the line after one.
                        continue
                    }
                    let named = Self.carrierNear(index, before: before, lines: lines.count, named: named(onLine:))
                    if named != nil { evidence.insert(.carrierNamed) }
                    var carrier = linked?.carrier ?? named?.carrier
                    if carrier == nil, named == nil { carrier = firstCarrierNamed ?? senderCarrier }
                    if carrier != nil, carrier == senderCarrier { evidence.insert(.sender) }
                    if let chosen = carrier, !number.candidates.contains(chosen) { carrier = nil }
                    // A number is taken on a link or a label, or (with its check digit) beside a carrier's name on
                    // its own line.
                    let checked = number.passesMod7 || number.format == .international
                    guard evidence.contains(.link) || evidence.contains(.label)
                        || (checked && Self.named(in: before) != nil && !Self.otherLabelled(before))
                    else { continue }
                    add(number, carrier: carrier, evidence: evidence)
                }
            }
        }
        // A number only in a carrier's link (its text elsewhere says nothing).
        for link in links where !found.full && !found.holds(link.number) {
            var evidence: Set<MailEvidence> = [.link]
            if link.carrier == senderCarrier { evidence.insert(.sender) }
            add(link.number, carrier: link.carrier, evidence: evidence)
        }
        return found.parcels
    }

    private var firstCarrierNamed: Carrier? {
        for line in sections.joined() {
            for (name, carrier) in Self.carrierNames where line.holds(name) { return carrier }
        }
        return nil
    }

    private static func previousLine(_ lines: [String], _ index: Int) -> String? {
        var position = index - 1
        while position >= 0 {
            let trimmed = lines[position].trimmedOfSpaces
            if !trimmed.isEmpty { return trimmed }
            position -= 1
        }
        return nil
    }

    /// A tracking label before the token on its line (no other label between), or on the line above when the
    /// token is all its own line holds.
    private static func labelled(before: String, alone: Bool, previous: String?, sharedCounts: Bool) -> Bool {
        let labels = sharedCounts ? trackingLabels : trackingLabels.filter { !sharedLabels.contains($0) }
        if let label = labels.compactMap({ before.place(of: $0, last: true) }).max(by: { $0.lowerBound < $1.lowerBound }) {
            let between = String(before[label.upperBound...])
            return !otherLabelled(between)
        }
        guard alone, let previous, !otherLabelled(previous) else { return false }
        return labels.contains { previous.holds($0) } && NumberToken.all(in: previous).isEmpty
    }

    private static func otherLabelled(_ text: String) -> Bool {
        otherLabels.contains { text.holds($0) }
    }

    /// A carrier named near a number: `carrier` is `nil` for a carrier Kuroneko does not track.
    struct Named {
        let carrier: Carrier?
    }

    /// The carrier named on the token's line before it, else on the nearest line above (up to six), else on
    /// the two lines below; `nil` when none is named.
    private static func carrierNear(
        _ index: Int, before: String, lines count: Int, named namedOnLine: (Int) -> Named?
    ) -> Named? {
        if let found = named(in: before) { return found }
        for offset in 1...6 where index - offset >= 0 {
            if let found = namedOnLine(index - offset) { return found }
        }
        for offset in 1...2 where index + offset < count {
            if let found = namedOnLine(index + offset) { return found }
        }
        return nil
    }

    /// The carrier named last in `text`, if any.
    private static func named(in text: String) -> Named? {
        var best: (String.Index, Carrier?)?
        for (name, carrier) in carrierNames {
            if let range = text.place(of: name, last: true), best.map({ range.lowerBound > $0.0 }) ?? true {
                best = (range.lowerBound, carrier)
            }
        }
        return best.map { Named(carrier: $0.1) }
    }
}

/// A run of digits that may be a tracking number: bare (10 to 13 digits), 4-4-4 (hyphens or spaces), a
/// carrier's own hyphenated groups (書留's 3-2-5-1), or an S10 number (`EJ 123 456 789 JP`); digits joined in any other shape, or touching a letter,
/// are not one.
struct NumberToken {
    let text: String
    let range: Range<String.Index>

    static func all(in line: String) -> [NumberToken] {
        var tokens: [NumberToken] = []
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            guard character.isASCII, character.isNumber || character.isUppercase else {
                index = line.index(after: index)
                continue
            }
            // The longest run of ASCII letters, digits, hyphens and single spaces between digits.
            var end = index
            while end < line.endIndex {
                let next = line[end]
                if next.isASCII, next.isNumber || next.isLetter {
                    end = line.index(after: end)
                } else if next == "-" || next == " ", line.index(after: end) < line.endIndex,
                    line[line.index(after: end)].isASCII, line[line.index(after: end)].isNumber
                        || line[line.index(after: end)].isUppercase, end > index,
                    line[line.index(before: end)].isNumber || line[line.index(before: end)].isUppercase
                {
                    end = line.index(after: end)
                } else {
                    break
                }
            }
            let run = String(line[index..<end])
            let precededByLetter = index > line.startIndex && line[line.index(before: index)].isLetter
                && line[line.index(before: index)].isASCII
            if !precededByLetter, let text = Self.shaped(run) {
                tokens.append(NumberToken(text: text, range: index..<end))
            } else if run.contains(" ") {
                // Spaces may join words that are not one number: look at each word on its own.
                var start = index
                for word in run.split(separator: " ", omittingEmptySubsequences: false) {
                    let wordEnd = line.index(start, offsetBy: word.count)
                    if let text = Self.shaped(String(word)), start == index ? !precededByLetter : true {
                        tokens.append(NumberToken(text: text, range: start..<wordEnd))
                    }
                    start = wordEnd < line.endIndex ? line.index(after: wordEnd) : wordEnd
                }
            }
            index = end
        }
        return tokens
    }

    /// The carriers' hyphenated shapes besides 4-4-4 (書留's 3-2-5-1).
    private static let printedGroups = Set(CarrierRegistry.definitions.flatMap(\.mail.printedGroups))

    /// The run as a number to parse, when it has one of the shapes numbers are printed in.
    static func shaped(_ run: String) -> String? {
        let groups = run.split(whereSeparator: { $0 == "-" || $0 == " " }).map(String.init)
        let counts = groups.map(\.count)
        let digitsOnly = groups.allSatisfy { $0.allSatisfy(\.isNumber) }
        if digitsOnly {
            if groups.count == 1, (10...13).contains(counts[0]) { return groups[0] }
            if counts == [4, 4, 4] { return groups.joined() }
            if printedGroups.contains(counts), !run.contains(" ") { return groups.joined() }
            return nil
        }
        let joined = groups.joined()
        // S10: two letters, nine digits, two letters.
        if joined.count == 13, joined.prefix(2).allSatisfy(\.isUppercase), joined.suffix(2).allSatisfy(\.isUppercase),
            joined.dropFirst(2).dropLast(2).allSatisfy(\.isNumber)
        {
            return joined
        }
        return nil
    }
}

/// Carriers' tracking links and the numbers in their query strings.
enum MailLinks {
    struct Link: Hashable {
        let number: TrackingNumber
        let carrier: Carrier
    }

    /// The most carrier links read in one sender's text: a shipping mail has a few.
    static let carrierLinksRead = 200
    private static let carrierHosts = CarrierRegistry.definitions.map(\.mail.linkHost)

    static func numbers(in text: String) -> [Link] {
        var links: [Link] = []
        var seen = Set<Link>()
        var rest = Substring(text)
        var carrierLinks = 0
        while carrierLinks < carrierLinksRead, let start = rest.place(of: "http") {
            let url = rest[start.lowerBound...].prefix { !$0.isWhitespace && !"<>\"'()（）「」".contains($0) }
            rest = rest[url.endIndex...]
            // Only a carrier's link is parsed: the host is found by hand first, cheaply, for every other link.
            guard let scheme = url.place(of: "://") else { continue }
            let host = url[scheme.upperBound...].prefix { !"/?#:".contains($0) }.lowercased()
            guard carrierHosts.contains(where: { host == $0 || host.hasSuffix("." + $0) }) else { continue }
            carrierLinks += 1
            guard let components = URLComponents(string: String(url)), let host = components.host?.lowercased() else {
                continue
            }
            guard
                let hints = CarrierRegistry.definitions.first(where: { definition in
                    host == definition.mail.linkHost || host.hasSuffix("." + definition.mail.linkHost)
                })
            else { continue }
            var values = (components.queryItems ?? []).filter { hints.mail.linkFields.contains($0.name) }.compactMap(\.value)
            if let prefix = hints.mail.linkPathPrefix, components.path.hasPrefix(prefix) {
                values.append(String(components.path.dropFirst(prefix.count).prefix { $0 != "/" }))
            }
            for value in values {
                guard let number = try? TrackingNumber(parsing: value), hints.accepts(number) else { continue }
                let link = Link(number: number, carrier: hints.carrier)
                if seen.insert(link).inserted { links.append(link) }
            }
        }
        return links
    }
}

/// The parcels found so far, each number once (a number found again adds its evidence and, when the first
/// finding had none, its carrier), in the order first found, and at most `limit` of them.
struct FoundParcels {
    let limit: Int
    private(set) var parcels: [FoundParcel] = []
    private var index: [TrackingNumber: Int] = [:]

    init(limit: Int) {
        self.limit = limit
    }

    var full: Bool { parcels.count >= limit }

    func holds(_ number: TrackingNumber) -> Bool { index[number] != nil }

    /// Adds `found`, or folds it into the finding of its number. - Returns: `false` when it is new and the
    /// limit is reached (it is not kept).
    @discardableResult
    mutating func add(_ found: FoundParcel) -> Bool {
        if let at = index[found.number] {
            let kept = parcels[at]
            parcels[at] = FoundParcel(
                number: kept.number, carrier: kept.carrier ?? found.carrier, shop: kept.shop ?? found.shop,
                order: kept.order ?? found.order,
                evidence: MailEvidence.allCases.filter { kept.evidence.contains($0) || found.evidence.contains($0) },
                product: kept.product ?? found.product)
            return true
        }
        guard !full else { return false }
        index[found.number] = parcels.count
        parcels.append(found)
        return true
    }
}
