import Kuroneko

/// The exports shops have, as public tools write their headers: label tools' (B2クラウド, e飛伝, ゆうプリR) and
/// marketplaces' (楽天, Amazon, Qoo10). The most particular layout comes first: B2's issued-label export before
/// its import layouts, e飛伝's export (with its numbers) before its import file (without).
extension SheetLayout {
    public static let known: [SheetLayout] = [
        b2Issued, b2Yamato, b2ShopTool, b2, ehidenExport, ehidenImport, yuPriRHistory, yuPriRImport,
        rakutenShipping, rakutenOrders, amazonShipping, amazonOrders, qoo10, yahooOrders, clickPostUpload,
    ]

    // MARK: Yamato B2クラウド

    /// B2's columns, in every spelling of them: its own, its issued-label export's and the shop tools'.
    private static let b2Roles: [RecordRole: [String]] = [
        .number: ["伝票番号"],
        .reference: ["お客様管理番号"],
        .name: ["お届け先名"],
        .telephone: ["お届け先電話番号"],
        .postcode: ["お届け先郵便番号"],
        // The address told when the parcel is on its way, the post-box parcels' (ネコポス), the issued labels'.
        .email: [
            "お届け予定ｅメールe-mailアドレス", "投函予定メールe-mailアドレス", "通知メールアドレス", "お届け完了ｅメールe-mailアドレス",
        ],
        .shippedOn: ["出荷予定日"],
        .label: ["品名１"],
        .note: ["記事"],
    ]
    private static let b2Kept = [
        "送り状種類", "お届け予定日", "お届け予定（指定）日", "配達時間帯", "配送時間帯", "品名２", "個数口表示フラグ",
    ]
    /// The address and the building's name after it, in B2's spellings.
    private static let b2Address: [RecordRole: (parts: [String], separator: String)] = [
        .address: (["お届け先住所", "お届け先アパートマンション名", "お届け先住所（アパートマンション名）"], " ")
    ]
    private static let b2Signature = [["送り状種類"], ["クール区分"], ["伝票番号"]]

    /// B2's issued-label export (発行済みデータ), 97 columns: its import layout, then 連携管理番号 and 通知メールアドレス.
    static let b2Issued = SheetLayout(
        name: "B2クラウド 発行済みデータ", signature: b2Signature + [["連携管理番号"], ["通知メールアドレス"]], roles: b2Roles,
        joined: b2Address, kept: b2Kept, carrier: .yamato)
    /// B2's import layout in Yamato's own spellings (95 columns: お届け予定（指定）日, 営業所止置き, 個数口枠の印字).
    static let b2Yamato = SheetLayout(
        name: "B2クラウド 外部データ（ヤマト運輸の項目名）", signature: b2Signature + [["お届け予定（指定）日"], ["営業所止置き"]],
        roles: b2Roles, joined: b2Address, kept: b2Kept, carrier: .yamato)
    /// B2's layout as shop tools write it (94 columns: お届け先名(ｶﾅ), 止置き, 検索キータイトル1).
    static let b2ShopTool = SheetLayout(
        name: "B2クラウド 外部データ（ショップツールの項目名）", signature: b2Signature + [["お届け先名(ｶﾅ)"], ["止置き"]],
        roles: b2Roles, joined: b2Address, kept: b2Kept, carrier: .yamato)
    /// Any other B2 sheet: its first columns.
    static let b2 = SheetLayout(name: "B2クラウド", signature: b2Signature, roles: b2Roles, joined: b2Address, kept: b2Kept, carrier: .yamato)

    // MARK: Sagawa e飛伝

    private static let ehidenNumber = ["お問合せ送り状No", "お問い合せ送り状No", "お問い合わせ送り状No", "お問合せ送り状番号"]

    /// e飛伝's shipped-data export (II and III), 53 columns: the number first, then 出荷日時 and the import's columns.
    static let ehidenExport = SheetLayout(
        name: "e飛伝 出荷実績データ", signature: [ehidenNumber, ["出荷日時", "出荷日"], ["住所録コード"]],
        roles: [
            .number: ehidenNumber, .reference: ["お客様管理ナンバー", "お客様管理番号"], .name: ["お届け先名称１"],
            .telephone: ["お届け先電話番号"], .postcode: ["お届け先郵便番号"], .shippedOn: ["出荷日時", "出荷日"],
            .label: ["品名１"],
        ],
        // e飛伝 cuts a long address into three cells at a byte count: joined as they were.
        joined: [.address: (["お届け先住所１", "お届け先住所２", "お届け先住所３"], "")],
        kept: ["配達日", "配達指定時間帯", "便種（商品）", "出荷個数"],
        carrier: .sagawa)
    /// e飛伝's import file: the labels to print, numbered only once printed.
    static let ehidenImport = SheetLayout(
        name: "e飛伝の取込データ", signature: [["住所録コード"], ["荷姿コード"], ["元着区分"]],
        refusal: "the labels to print, which have no tracking numbers yet; import e飛伝's shipped data (出荷実績データ) instead")

    // MARK: Japan Post ゆうプリR, クリックポスト

    /// ゆうプリR's shipping history (発送履歴): the shop's number and the tracking number.
    static let yuPriRHistory = SheetLayout(
        name: "ゆうプリR 発送履歴", signature: [["お客様側管理番号"], ["お問い合わせ番号"]],
        roles: [
            .number: ["お問い合わせ番号"], .reference: ["お客様側管理番号"],
            .shippedOn: ["仮引受確定作業年月日", "発送予定日", "発送日"], .name: ["お届け先 名称１", "お届け先氏名"],
            .telephone: ["お届け先 電話番号"], .postcode: ["お届け先 郵便番号"], .email: ["お届け先 メールアドレス１"],
        ],
        joined: [.address: (["お届け先 住所１", "お届け先 住所２", "お届け先 住所３"], "")],
        kept: ["郵便種別", "配送完了作業年月日"], carrier: .japanPost)
    /// ゆうプリR's import layout: the labels to print.
    static let yuPriRImport = SheetLayout(
        name: "ゆうプリRの取込データ", signature: [["お客様側管理番号"], ["発送予定日"], ["郵便種別"]],
        refusal: "the labels to print, which have no tracking numbers yet; export ゆうプリR's 発送履歴 instead")
    /// クリックポスト's upload: the labels to pay for, numbered once paid.
    static let clickPostUpload = SheetLayout(
        name: "クリックポストの一括申込データ", signature: [["お届け先氏名"], ["お届け先敬称"], ["お届け先住所1行目"], ["内容品"]],
        refusal: "the labels to pay for, which have no tracking numbers yet; "
            + "download the paid labels' list with their お問い合わせ番号 from クリックポスト instead")

    // MARK: Marketplaces

    /// 楽天 RMS's carrier codes in its 配送会社 column.
    private static let rakutenCarriers: [String: Carrier] = ["1001": .yamato, "1002": .sagawa, "1003": .japanPost]

    /// 楽天 RMS's 発送明細 (the shipping details uploaded to RMS).
    static let rakutenShipping = SheetLayout(
        name: "楽天 RMS 発送明細", signature: [["注文番号"], ["送付先ID"], ["発送明細ID"]],
        roles: [.number: ["お荷物伝票番号"], .reference: ["注文番号"], .carrier: ["配送会社"], .shippedOn: ["発送日"]],
        carrierCodes: rakutenCarriers)
    /// 楽天 RMS's order CSV: one row per order line, the recipient's name and telephone in parts.
    static let rakutenOrders = SheetLayout(
        name: "楽天 RMS 受注データ", signature: [["受注番号"], ["送付先名字"], ["お荷物伝票番号"]],
        roles: [
            .number: ["お荷物伝票番号"], .reference: ["受注番号"], .carrier: ["配送会社"], .email: ["メールアドレス"],
            .prefecture: ["送付先住所：都道府県"], .label: ["商品名"],
        ],
        joined: [
            .name: (["送付先名字", "送付先名前"], " "), .telephone: (["送付先電話番号１", "送付先電話番号２", "送付先電話番号３"], "-"),
            .postcode: (["送付先郵便番号１", "送付先郵便番号２"], "-"),
            .address: (["送付先住所：都道府県", "送付先住所：都市区", "送付先住所：町以降"], ""),
        ],
        kept: ["配送方法", "個数"], carrierCodes: rakutenCarriers)
    /// Amazon.co.jp's 出荷通知 template: tab-separated, a `TemplateType` row above the headers and a row of English
    /// keys (order-id, tracking-number…) below them.
    static let amazonShipping = SheetLayout(
        name: "Amazon 出荷通知", signature: [["注文番号"], ["配送業者コード"], ["お問合わせ伝票番号", "お問い合わせ伝票番号"]],
        roles: [
            .number: ["お問合わせ伝票番号", "お問い合わせ伝票番号"], .reference: ["注文番号"],
            .carrier: ["配送業者名", "配送業者コード"], .shippedOn: ["出荷日"],
        ],
        kept: ["配送方法", "出荷数"])
    /// Amazon's order report: orders, before they have numbers.
    static let amazonOrders = SheetLayout(
        name: "Amazon の注文レポート", signature: [["order-id"], ["order-item-id"], ["purchase-date"], ["recipient-name"]],
        refusal: "orders without tracking numbers; import the 出荷通知 file you upload to Amazon instead")
    /// Yahoo!ショッピング's order data (its English field names): the first tracking number of each order.
    static let yahooOrders = SheetLayout(
        name: "Yahoo!ショッピング 注文データ", signature: [["OrderId"], ["ShipInvoiceNumber1"], ["ShipCompanyCode"]],
        roles: [
            .number: ["ShipInvoiceNumber1"], .reference: ["OrderId"], .name: ["ShipName"], .telephone: ["ShipPhoneNumber"],
            .postcode: ["ShipZipCode"], .prefecture: ["ShipPrefecture"], .email: ["BillMailAddress"],
            .shippedOn: ["ShipDate"],
        ],
        joined: [
            .name: (["ShipLastName", "ShipFirstName"], " "),
            .address: (["ShipPrefecture", "ShipCity", "ShipAddress1", "ShipAddress2"], ""),
        ],
        kept: ["ShipMethodName", "ShipInvoiceNumber2"])
    /// Qoo10's order sheet and its shipping upload (配送会社, 送り状番号, 発送日).
    static let qoo10 = SheetLayout(
        name: "Qoo10 配送データ", signature: [["カート番号"], ["配送会社"], ["送り状番号"]],
        roles: [
            .number: ["送り状番号"], .reference: ["注文番号"], .carrier: ["配送会社"], .shippedOn: ["発送日"],
            .name: ["受取人名"], .telephone: ["受取人電話番号", "受取人携帯電話番号"], .postcode: ["郵便番号"],
            .label: ["商品名"], .address: ["住所"],
        ],
        kept: ["数量"])
}
