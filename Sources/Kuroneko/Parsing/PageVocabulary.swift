/// The carriers' own fixed words: what a tracking page says to everyone (its labels, headings, buttons, status
/// words and fixed sentences), gathered from Yamato's, Sagawa's and Japan Post's pages and the status
/// vocabulary. ``PageMasking`` keeps these and masks every other word. No place name, office name, person's
/// name or single kanji is here: a word that could be part of someone's name or address is not safe to keep.
enum PageVocabulary {
    static let japanese: [String] = [
        // Carriers and services.
        "ヤマト運輸", "クロネコヤマト", "宅急便コンパクト", "宅急便タイムサービス", "宅急便", "ネコポス", "クロネコゆうパケット",
        "クロネコＤＭ便", "佐川急便株式会社", "佐川急便", "飛脚宅配便", "飛脚メール便", "日本郵便株式会社", "日本郵便",
        "ゆうパック", "ゆうパケット", "ゆうメール", "レターパック", "簡易書留", "書留", "国際スピード郵便", "付加サービス",
        // Headings, labels and buttons.
        "荷物お問い合わせシステム", "お荷物問い合わせサービス", "郵便追跡サービス", "追跡サービスについて", "個別番号検索結果",
        "詳細検索結果", "送り状番号検索", "お問い合わせ伝票番号", "お問い合せ送り状No.", "お問い合わせ送り状No", "お問い合わせ番号",
        "お問い合わせ先", "伝票番号", "送り状番号", "追跡番号", "荷物状況", "最新荷物状況", "配送状況", "配送履歴", "最新状態",
        "最新年月日", "最新取扱局", "状態発生日", "取扱局", "配達予定局", "県名等", "郵便番号", "商品種別", "商品名", "お荷物個数",
        "個数口", "サイズ", "出荷日", "日付", "日時", "区分", "詳細", "詳細表示", "詳細印刷", "一覧印刷", "画面を閉じる",
        "詳細確認／日時・場所変更", "関連する送り状も表示する", "別のお問い合わせ番号を検索する", "続けてお問い合わせ",
        "お届け予定日時", "お届け希望日時", "お届け希望時間", "再配達希望日時", "配達予定日", "配達完了日", "配達希望日",
        "配達希望時間帯", "午前中", "お届け完了通知を依頼", "配達完了メールのご案内", "担当営業所", "営業所を探す", "営業所検索",
        "郵便局・ATMを探す", "再配達のお申し込み", "集荷のお申し込み", "集荷に関するお問い合せ", "配達に関するお問い合せ",
        "よくあるご質問・お問い合わせ", "よくあるご質問", "ご利用方法", "ご利用規約", "サイトのご利用について", "サイトマップ",
        "プライバシーポリシー", "個人情報保護方針", "個人のお客さま", "法人のお客さま", "郵便・荷物", "ホーム", "日本語", "こちら",
        "一覧へ", "上部に戻る", "該当なし", "電話番号", "お届け先", "ご依頼主", "依頼主", "差出人", "受取人", "お名前", "氏名",
        "住所", "ご住所", "送り主", "荷送人", "荷受人", "配達先", "営業所", "郵便局", "中継センター", "サービスセンター",
        "ゲートウェイベース", "ベース", "センター", "主管支店", "支店",
        // Honorifics after a name (the name itself is masked).
        "様", "御中",
        // Status words beyond the catalogue.
        "荷物受付", "発送済み", "輸送中", "配達中", "配達完了", "持ち出し中", "保管中", "保管", "到着", "通過", "引受", "配達",
        "返送", "返品", "集荷", "調査中", "伝票番号未登録", "伝票番号誤り", "差出人に返送済み", "お届け先にお届け済み",
        "保管期間経過のため", "ご不在のため持ち戻り", "依頼受付", "日、時間帯変更",
        // The carriers' fixed sentences.
        "※「詳細」をクリックすると、お荷物の詳しい状況が表示されます。", "※日時は営業所・中継センターで作業を行った日時です。",
        "※飛脚メール便のお問い合わせは、担当営業所までお願いいたします。", "※推奨環境は",
        "お問い合わせいただいた伝票番号に誤りがあります。伝票番号をご確認ください。",
        "お問い合わせいただいた伝票番号は、今現在コンピュータに登録されておりません。",
        "お問い合わせはサービスセンターまでお願いいたします。",
        "お問い合わせ番号が見つかりません。お問い合わせ番号をご確認の上、お近くの取扱店にお問い合わせください。",
        "お問い合わせ番号をクリックすると、詳細が表示されます。", "お届けに伺いましたが、ご不在でしたので持ち帰りました。",
        "お届けに伺いましたが、休業日のため持ち帰りました。", "お届け先のポストに投函いたしました。",
        "お届け先のポストへ投函する予定です。", "お荷物が大きいため、ご指定の場所にお届けできませんでした。",
        "お荷物のお届けが完了いたしました。", "お荷物をお届け先へ輸送しております。", "お荷物をお預かりいたしました。",
        "お荷物を発送いたしました。", "お荷物データが登録されておりません。", "このお品物はお届けが済んでおります。",
        "ご不在のため持ち帰りました。", "ご不在連絡票をご確認ください。", "ご指定の日時にお届けするため保管しております。",
        "ただいまお届けするためにお品物を持ち出しております。", "ただいまお届けに向かっております。",
        "ただいま配達営業所へ輸送中です。", "作業店にて輸送方法（陸路及び海上輸送）の変更をいたしました。",
        "宅配ボックスの暗証番号は不在連絡票をご確認ください。",
        "当ページはJavaScriptを使用しております。申し訳ございませんが、JavaScript対応ブラウザにてご利用ください。",
        "恐れ入りますが、お問い合せ送り状NOをお確かめください。", "恐れ入りますが、営業所へお問い合わせください。",
        "最寄りのサービスセンターまでお問い合わせください。", "配達担当店にてお荷物を保管しております。",
        "取扱局名をクリックすると、郵便局の所在地などが表示されます。",
    ]

    /// English words of Japan Post's and Yamato's English pages, matched as whole words only.
    static let english: [String] = [
        "About", "Additional", "All", "Arrival", "Class", "Click", "Contact", "Copyright", "Country", "Customs", "Details",
        "Dispatch", "EMS", "EN", "English", "FAQ", "Final", "Find", "Home", "Item", "JAPAN", "JP", "Japan", "Mail", "Office",
        "Offices", "POST", "Parcels", "Post", "Posting", "Collection", "Prefecture", "Privacy", "Redelivery", "Reserved",
        "Rights", "SAGAWA", "YAMATO", "TRANSPORT", "EXPRESS", "Search", "Service", "Shipping", "Site", "State", "Telephone",
        "Trace", "Track", "Type", "ZIP", "another", "at", "code", "Postal", "date", "delivery", "display", "exchange", "for",
        "from", "goods", "if", "import", "information", "inward", "item", "local", "name", "number", "occurred",
        "occurrence", "of", "office", "out", "outward", "overseas", "physical", "policy", "post", "presented", "record",
        "result", "search", "services", "the", "time", "to", "track", "tracking", "In", "Transit", "Delivered",
        "Delivery", "Accepted", "Shipment", "Status", "Date", "Time", "Number", "Tracking", "Details", "Posted",
        "TEL", "Tel", "FAX", "Fax", "No",
    ]

    /// The words by their first character, longest first.
    private static let byFirst: [Unicode.Scalar: [[Unicode.Scalar]]] = {
        var table: [Unicode.Scalar: [[Unicode.Scalar]]] = [:]
        let words = japanese + StatusVocabulary.catalogue.map(\.label) + StatusVocabulary.families.map(\.prefix)
            + CarrierRegistry.definitions.flatMap(\.pageWords)
        for word in Set(words) where word.unicodeScalars.count >= 2 || word == "様" {
            let scalars = Array(word.unicodeScalars)
            table[scalars[0], default: []].append(scalars)
        }
        return table.mapValues { $0.sorted { $0.count > $1.count } }
    }()
    private static let englishWords: [Unicode.Scalar: [[Unicode.Scalar]]] = {
        var table: [Unicode.Scalar: [[Unicode.Scalar]]] = [:]
        for word in Set(english) {
            let scalars = Array(word.unicodeScalars)
            table[scalars[0], default: []].append(scalars)
        }
        return table.mapValues { $0.sorted { $0.count > $1.count } }
    }()

    /// The length (in units) of the longest word of the vocabulary that starts at `index`, or `nil`. An English
    /// word counts only standing alone (no ASCII letter or digit just before or after it).
    static func word(at index: Int, in units: [PageMasking.TextUnit]) -> Int? {
        let first = units[index].scalar
        if first.isASCII {
            guard let candidates = englishWords[first] else { return nil }
            if index > 0, isWordCharacter(units[index - 1].scalar) { return nil }
            for word in candidates where matches(word, at: index, in: units) {
                let end = index + word.count
                if end < units.count, isWordCharacter(units[end].scalar) { continue }
                return word.count
            }
            return nil
        }
        guard let candidates = byFirst[first] else { return nil }
        return candidates.first { matches($0, at: index, in: units) }?.count
    }

    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCIILetter || ("0"..."9").contains(scalar)
    }

    private static func matches(_ word: [Unicode.Scalar], at index: Int, in units: [PageMasking.TextUnit]) -> Bool {
        guard index + word.count <= units.count else { return false }
        for offset in 0..<word.count where units[index + offset].scalar != word[offset] { return false }
        return true
    }
}
