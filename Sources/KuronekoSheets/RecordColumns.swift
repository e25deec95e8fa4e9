import Foundation
import Kuroneko
import KuronekoStore

/// What a column of a shop's sheet holds for a parcel.
public enum RecordRole: String, Sendable, CaseIterable {
    case number, carrier, label, reference, name, telephone, email, postcode, prefecture, address
    case shippedOn = "shipped_on"
    case note

    /// Header names that say the role, folded as ``RecordColumns/folded(_:)`` folds a header: the common
    /// exports of B2クラウド, e飛伝, ゆうプリR, Click Post and shop systems, in Japanese and English.
    static let headers: [RecordRole: Set<String>] = [
        .number: [
            "伝票番号", "送り状番号", "送り状no", "お問い合わせ番号", "お問合せ番号", "お問い合せ番号", "問合せ番号", "問い合わせ番号",
            "お問い合わせ伝票番号", "お問合せ伝票番号", "お問合せ送り状no", "追跡番号", "荷物番号", "配送伝票番号", "trackingnumber",
            "trackingno", "tracking", "trackingcode", "number",
            // The ways Sagawa's tools, Amazon's template and Rakuten's 発送明細 write it.
            "お問い合わせ送り状no", "お問い合せ送り状no", "お問合わせ送り状no", "お問い合わせ送り状番号", "お問合せ送り状番号",
            "お問い合せ送り状番号", "お問合わせ伝票番号", "お問い合せ伝票番号", "お荷物伝票番号", "送り状",
        ],
        .carrier: [
            "運送会社", "配送業者", "配送会社", "宅配業者", "運送業者", "carrier", "trackingcompany", "shippingcarrier",
            "配送業者名", "配送会社名", "運送会社名", "carriername",
        ],
        .label: ["ラベル", "label", "メモ", "品名", "商品名", "内容品", "item", "itemname", "product", "productname"],
        .reference: [
            "お客様管理番号", "注文番号", "ご注文番号", "受注番号", "管理番号", "オーダー番号", "注文id", "orderid",
            "ordernumber", "orderno", "order", "reference", "referencenumber", "お客様側管理番号", "お客様管理ナンバー",
        ],
        .name: [
            "お届け先名", "お届け先名称", "お届け先氏名", "お届け先様名", "届け先名", "届け先氏名", "受取人名", "受取人", "氏名",
            "名前", "宛名", "recipient", "recipientname", "shippingname", "shiptoname",
        ],
        .telephone: [
            "お届け先電話番号", "届け先電話番号", "電話番号", "受取人電話番号", "tel", "telephone", "phone", "phonenumber",
            "shippingphone",
        ],
        .email: [
            "メールアドレス", "お届け先メールアドレス", "eメールアドレス", "email", "mail", "emailaddress",
            // B2クラウド's: the address told when the parcel is on its way, and when it arrived; its issued labels'.
            "お届け予定eメールemailアドレス", "お届け完了eメールemailアドレス", "通知メールアドレス",
        ],
        .postcode: ["お届け先郵便番号", "届け先郵便番号", "郵便番号", "〒", "zip", "zipcode", "postcode", "postalcode", "shippingzip"],
        .prefecture: ["都道府県", "お届け先都道府県", "prefecture", "province", "shippingprovince"],
        .address: [
            "お届け先住所", "届け先住所", "送付先住所", "受取人住所", "住所", "address", "shippingaddress", "shipaddress",
            "shippingaddress1", "shipaddress1",
        ],
        .shippedOn: ["出荷日", "出荷予定日", "発送日", "発送予定日", "出荷年月日", "shipdate", "shippedon", "shippeddate", "shippingdate"],
        .note: ["備考", "記事", "note", "notes", "comment"],
    ]

    /// Columns of Kuroneko's own sheets that are not kept when one is read back: the tracking columns (but the
    /// carrier's), the watch's state and when it was checked, when it was marked handled.
    static let ignored: Set<String> = Set(
        (TrackingColumns.names + TrackingColumns.japaneseNames).filter { $0 != "carrier" && $0 != "運送会社" }
            .map(RecordColumns.folded) + ["active", "checkedat", "追跡中", "確認日時", "handledat", "対応済み日時", "family", "分類"])
}

/// Which column of a sheet holds what, found from its header (``RecordRole/headers``) and the
/// `--column role=HEADER` overrides, and a row's ``ParcelRecord`` read from it: the roles' columns, and the
/// other named columns kept as they came (the first ``ParcelRecordLimits/fields``).
public struct RecordColumns: Sendable, Equatable {
    public private(set) var roles: [RecordRole: Int] = [:]
    /// A known layout's further columns for a role, tried in order when the first is empty (B2's e-mail columns).
    private(set) var alternatives: [RecordRole: [Int]] = [:]
    /// A known layout's roles read from several columns joined (楽天's 送付先名字 and 送付先名前).
    private(set) var joinedColumns: [RecordRole: JoinedColumns] = [:]
    /// The other columns kept with each parcel.
    public private(set) var kept: [Int] = []
    /// Named columns past the bound, not kept.
    public private(set) var dropped = 0
    /// The known export the header is, when it is one (its columns first, its carrier and codes).
    public let layout: SheetLayout?
    let header: [String]

    struct JoinedColumns: Sendable, Equatable {
        let indices: [Int]
        let separator: String
    }

    /// - Parameters:
    ///   - header: the sheet's header row, or `nil` for a sheet without one (nothing is recognised).
    ///   - chosen: columns named by the user (a role's column number from 1, or its header), which win.
    ///   - width: how many columns the sheet's rows have (a chosen column number is checked against it).
    ///   - layout: the known export the header is: its columns come before the common names, and only the columns
    ///     it lists are kept besides the roles.
    /// - Throws: ``RecordColumnsError`` for a chosen column the sheet does not have.
    public init(header: [String]?, width: Int? = nil, chosen: [RecordRole: String], layout: SheetLayout? = nil)
        throws(RecordColumnsError)
    {
        let row = header ?? []
        self.header = row
        self.layout = layout
        for (role, name) in chosen {
            roles[role] = try Self.index(of: name, role: role, header: header, width: width ?? row.count)
        }
        let folded = row.map(Self.folded)
        if let layout {
            for (role, names) in layout.roles where roles[role] == nil {
                let found = names.flatMap { name in folded.indices.filter { folded[$0] == name } }
                guard let first = found.first else { continue }
                roles[role] = first
                if found.count > 1 { alternatives[role] = Array(found.dropFirst()) }
            }
            for (role, parts) in layout.joined where roles[role] == nil {
                let found = parts.parts.compactMap { folded.firstIndex(of: $0) }
                guard !found.isEmpty else { continue }
                joinedColumns[role] = JoinedColumns(indices: found, separator: parts.separator)
            }
        }
        var taken = Set(roles.values).union(alternatives.values.joined()).union(joinedColumns.values.flatMap(\.indices))
        for (index, name) in folded.enumerated() where !taken.contains(index) {
            guard let role = RecordRole.allCases.first(where: { RecordRole.headers[$0]?.contains(name) == true }),
                roles[role] == nil, joinedColumns[role] == nil
            else { continue }
            roles[role] = index
            taken.insert(index)
        }
        for (index, cell) in row.enumerated() where !taken.contains(index) {
            guard !cell.trimmingCharacters(in: .whitespaces).isEmpty, !RecordRole.ignored.contains(folded[index]),
                layout.map({ $0.kept.contains(folded[index]) }) ?? true
            else { continue }
            if kept.count < ParcelRecordLimits.fields { kept.append(index) } else { dropped += 1 }
        }
    }

    /// The record's columns in a download, named as ``RecordRole/headers`` recognises them.
    public static func names(english: Bool) -> [String] {
        english
            ? ["reference", "recipient_name", "telephone", "email", "postcode", "prefecture", "address", "shipped_on", "note",
                "handled_at"]
            : ["注文番号", "お届け先名", "電話番号", "メールアドレス", "郵便番号", "都道府県", "住所", "出荷日", "備考", "対応済み日時"]
    }

    /// A record's cells under ``names(english:)``, then the value of each of `fieldNames` it keeps.
    public static func cells(of record: ParcelRecord?, fieldNames: [String]) -> [String] {
        let recipient = record?.recipient
        let own = [
            record?.reference, recipient?.name, recipient?.telephone, recipient?.email, recipient?.postcode,
            recipient?.prefecture, recipient?.address, record?.shippedOn, record?.note, record?.handled?.at,
        ].map { $0 ?? "" }
        let fields = record?.fields ?? []
        return own + fieldNames.map { name in fields.first { $0.name == name }?.value ?? "" }
    }

    /// A header as compared: NFKC, lower case, spaces, underscores, hyphens, dots and a trailing 1 dropped
    /// (`お届け先名称１` is `お届け先名称`, `Order ID` is `orderid`).
    static func folded(_ header: String) -> String {
        var text = header.precomposedStringWithCompatibilityMapping.lowercased()
        text.removeAll { " \u{3000}_-.・:：()（）".contains($0) }
        if text.count > 1, text.last == "1" { text.removeLast() }
        return text
    }

    private static func index(of name: String, role: RecordRole, header: [String]?, width: Int)
        throws(RecordColumnsError) -> Int
    {
        let row = header ?? []
        if let number = Int(name) {
            guard number >= 1, number <= width else { throw .beyond(role, number, width) }
            return number - 1
        }
        guard let found = row.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == name }) else {
            throw .noColumn(role, name, row)
        }
        return found
    }

    /// The header of a role's column, for the report.
    public func headerName(of role: RecordRole) -> String? {
        roles[role].flatMap { $0 < header.count ? header[$0] : nil }
    }

    /// `reference ← お客様管理番号, name ← お届け先名, …; kept as they came: 品名, 個数` (nothing for a sheet with
    /// no recognised column).
    public var report: String? {
        let found = RecordRole.allCases.compactMap { role -> String? in
            guard role != .number, let columns = columnNames(of: role) else { return nil }
            return "\(role.rawValue) ← \(columns)"
        }
        var text = found.joined(separator: ", ")
        if !kept.isEmpty {
            text += (text.isEmpty ? "" : "; ") + "kept as they came: "
                + kept.prefix(8).map { header[$0] }.joined(separator: ", ") + (kept.count > 8 ? ", …" : "")
        }
        if dropped > 0 { text += " (\(dropped) more columns not kept: at most \(ParcelRecordLimits.fields))" }
        return text.isEmpty ? nil : text
    }

    /// The columns a role is read from, in words: `お届け予定ｅメールe-mailアドレス (else 通知メールアドレス)`,
    /// `送付先名字 + 送付先名前`; `nil` for a role no column gives.
    public func columnNames(of role: RecordRole) -> String? {
        func name(_ index: Int) -> String { index < header.count ? header[index] : "column \(index + 1)" }
        if let index = roles[role] {
            let others = alternatives[role] ?? []
            return name(index) + (others.isEmpty ? "" : " (else " + others.map(name).joined(separator: ", ") + ")")
        }
        return joinedColumns[role].map { $0.indices.map(name).joined(separator: " + ") }
    }

    /// A row's record: each part that is not what it should be is left out and named in `problems`.
    public func record(of cells: [String]) -> (record: ParcelRecord?, problems: [String]) {
        func cell(_ role: RecordRole) -> String? { text(of: role, in: cells) }
        var record = ParcelRecord(
            reference: cell(.reference),
            recipient: .init(
                name: cell(.name), telephone: cell(.telephone), email: cell(.email), postcode: cell(.postcode),
                prefecture: cell(.prefecture), address: cell(.address)),
            shippedOn: cell(.shippedOn), note: cell(.note))
        record.fields = kept.compactMap { index in
            guard index < cells.count, index < header.count else { return nil }
            let value = cells[index].trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else { return nil }
            return ParcelRecord.Field(name: String(header[index].prefix(ParcelRecordLimits.fieldNameLength)), value: value)
        }
        var problems: [String] = []
        // A part that is refused is dropped and the rest kept, as many times as there are bad parts.
        // Each pass drops one part: at most every part of the recipient, the other parts and every kept column.
        for _ in 0..<(ParcelRecordLimits.fields + 10) {
            do {
                return (try record.validated(), problems)
            } catch {
                problems.append(error.description)
                guard record.dropPart(named: error) else { return (nil, problems) }
            }
        }
        return (nil, problems)
    }

    /// A role's text in a row: its column's, else the first of the layout's further columns with text, else its
    /// joined columns'; `nil` when empty.
    func text(of role: RecordRole, in cells: [String]) -> String? {
        func cell(_ index: Int) -> String? {
            guard index < cells.count else { return nil }
            let text = cells[index].trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
        if let index = roles[role] {
            if let text = cell(index) { return text }
            return alternatives[role]?.lazy.compactMap(cell).first
        }
        guard let joined = joinedColumns[role] else { return nil }
        let parts = joined.indices.compactMap(cell)
        return parts.isEmpty ? nil : parts.joined(separator: joined.separator)
    }

    /// The carrier a row says: its carrier cell's (the layout's code, a carrier's name, or a service such as
    /// ゆうパケット; the first of the layout's carrier columns with text), else the layout's own carrier.
    public func carrier(of cells: [String]) -> Carrier? {
        guard let cell = text(of: .carrier, in: cells) else { return layout?.carrier }
        return layout?.carrier(code: cell) ?? Self.carrier(named: cell) ?? layout?.carrier
    }

    /// A carrier named in a cell: its code or alias, else the carrier whose name or service name in the cell is
    /// the longest (`クロネコヤマト` is Yamato's, `ゆうパケット` Japan Post's); `nil` when none or a tie.
    public static func carrier(named text: String) -> Carrier? {
        let cell = text.precomposedStringWithCompatibilityMapping.trimmingCharacters(in: .whitespaces)
        guard !cell.isEmpty else { return nil }
        if let carrier = try? Carrier(named: cell.replacingOccurrences(of: " ", with: "")) { return carrier }
        let lowered = cell.lowercased()
        var best: (carrier: Carrier, length: Int)?
        var tie = false
        for definition in CarrierRegistry.definitions {
            let names = [definition.name, definition.englishName.lowercased()] + definition.mail.names
            guard let length = names.filter({ lowered.contains($0.precomposedStringWithCompatibilityMapping.lowercased()) })
                .map(\.count).max()
            else { continue }
            if let current = best, current.length == length {
                tie = true
            } else if best == nil || length > best!.length {
                best = (definition.carrier, length)
                tie = false
            }
        }
        return tie ? nil : best?.carrier
    }
}

extension ParcelRecord {
    /// Drops the part a refusal names. - Returns: false when it names none that can be dropped.
    fileprivate mutating func dropPart(named error: ParcelRecordError) -> Bool {
        guard case .invalid(let part, _) = error else {
            guard !fields.isEmpty else { return false }
            fields.removeLast()
            return true
        }
        switch part {
        case "reference": reference = nil
        case "shipped_on": shippedOn = nil
        case "note": note = nil
        case "recipient.name": recipient?.name = nil
        case "recipient.telephone": recipient?.telephone = nil
        case "recipient.email": recipient?.email = nil
        case "recipient.postcode": recipient?.postcode = nil
        case "recipient.prefecture": recipient?.prefecture = nil
        case "recipient.address": recipient?.address = nil
        case let field where field.hasPrefix("fields["):
            let index = Int(field.dropFirst(7).prefix { $0.isNumber }) ?? -1
            guard fields.indices.contains(index) else { return false }
            fields.remove(at: index)
        default: return false
        }
        return true
    }
}

extension RecordRole {
    /// A column chosen as `role=HEADER` (or `role=N`, from 1), as `kuroneko import --column` and the import's
    /// `column` parameter take it; text without a role before `=` chooses the numbers' column.
    /// - Throws: ``RecordColumnsError/noRole(_:)`` for a role there is not.
    public static func choice(_ text: String) throws(RecordColumnsError) -> (role: RecordRole, column: String) {
        guard let equals = text.firstIndex(of: "="),
            text[..<equals].allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") })
        else { return (.number, text) }
        guard let role = RecordRole(rawValue: String(text[..<equals])) else {
            throw .noRole(String(text[..<equals]))
        }
        return (role, String(text[text.index(after: equals)...]))
    }
}

/// A column the user chose that the sheet does not have, or a role there is not.
public enum RecordColumnsError: Error, Sendable, Equatable, CustomStringConvertible {
    case beyond(RecordRole, Int, Int)
    case noColumn(RecordRole, String, [String])
    case noRole(String)

    public var description: String { description(option: "--column") }

    /// The line, naming the choice as the caller takes it: `--column` on the command line, `column` in an upload.
    public func description(option: String) -> String {
        switch self {
        case .beyond(let role, let number, let count):
            "\(option) \(role.rawValue)=\(number) is beyond the file's \(count) columns"
        case .noRole(let name):
            "\(option) \(name.prefix(40))=…: no such role; the roles are "
                + RecordRole.allCases.map(\.rawValue).joined(separator: ", ")
        case .noColumn(let role, let name, let header):
            "\(option) \(role.rawValue)=\(name.prefix(80)): no column of that name; the header has "
                + header.prefix(30).map { String($0.prefix(40)) }.joined(separator: ", ")
        }
    }
}
