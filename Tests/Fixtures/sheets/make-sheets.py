#!/usr/bin/env python3
"""Writes the shop-sheet fixtures: each known export's header (as public tools write it) with rows of the
project's own making, in the encoding and separator the export has, and expected.json saying what each sheet
must give. Run from this directory: python3 make-sheets.py (the files are committed; run it after a change)."""
import json

def number(seed):
    """A 12-digit number whose last digit is the first eleven's remainder by 7 (Yamato's, Sagawa's and Japan
    Post's form)."""
    eleven = 10_000_000_000 + seed * 7_919
    return f"{eleven:011d}{eleven % 7}"

B2_SHOP_TOOL = """お客様管理番号,送り状種類,クール区分,伝票番号,出荷予定日,お届け予定日,配送時間帯,お届け先コード,お届け先電話番号,お届け先電話番号枝番,お届け先郵便番号,お届け先住所,お届け先アパートマンション名,お届け先会社・部門１,お届け先会社・部門２,お届け先名,お届け先名(ｶﾅ),敬称,ご依頼主コード,ご依頼主電話番号,ご依頼主電話番号枝番,ご依頼主郵便番号,ご依頼主住所,ご依頼主アパートマンション名,ご依頼主名,ご依頼主名(ｶﾅ),品名コード１,品名１,品名コード２,品名２,荷扱い１,荷扱い２,記事,ｺﾚｸﾄ代金引換額（税込),内消費税額等,止置き,営業所コード,発行枚数,個数口枠の印字,請求先顧客コード,請求先分類コード,運賃管理番号,クロネコwebコレクトデータ登録,クロネコwebコレクト加盟店番号,クロネコwebコレクト申込受付番号１,クロネコwebコレクト申込受付番号２,クロネコwebコレクト申込受付番号３,お届け予定ｅメール利用区分,お届け予定ｅメールe-mailアドレス,入力機種,お届け予定ｅメールメッセージ,お届け完了ｅメール利用区分,お届け完了ｅメールe-mailアドレス,お届け完了ｅメールメッセージ,クロネコ収納代行利用区分,予備,収納代行請求金額(税込),収納代行内消費税額等,収納代行請求先郵便番号,収納代行請求先住所,収納代行請求先住所（アパートマンション名）,収納代行請求先会社・部門名１,収納代行請求先会社・部門名２,収納代行請求先名(漢字),収納代行請求先名(カナ),収納代行問合せ先郵便番号,収納代行問合せ先住所,収納代行問合せ先住所（アパートマンション名）,収納代行問合せ先電話番号,収納代行管理番号,収納代行品名,収納代行備考,複数口くくりキー,検索キータイトル1,検索キー1,検索キータイトル2,検索キー2,検索キータイトル3,検索キー3,検索キータイトル4,検索キー4,検索キータイトル5,検索キー5,予備,予備,投函予定メール利用区分,投函予定メールe-mailアドレス,投函予定メールメッセージ,投函完了メール（お届け先宛）利用区分,投函予定メール（お届け先宛）e-mailアドレス,投函予定メール（お届け先宛）メッセージ,投函完了メール（ご依頼主宛）利用区分,投函予定メール（ご依頼主宛）e-mailアドレス,投函予定メール（ご依頼主宛）メッセージ""".split(",")

B2_YAMATO = """お客様管理番号,送り状種類,クール区分,伝票番号,出荷予定日,お届け予定（指定）日,配達時間帯,お届け先コード,お届け先電話番号,お届け先電話番号枝番,お届け先郵便番号,お届け先住所,お届け先住所（アパートマンション名）,お届け先会社・部門名１,お届け先会社・部門名２,お届け先名,お届け先名略称カナ,敬称,ご依頼主コード,ご依頼主電話番号,ご依頼主電話番号枝番,ご依頼主郵便番号,ご依頼主住所,ご依頼主住所（アパートマンション名）,ご依頼主名,ご依頼主略称カナ,品名コード１,品名１,品名コード２,品名２,荷扱い１,荷扱い２,記事,コレクト代金引換額（税込）,コレクト内消費税額等,営業所止置き,営業所コード,発行枚数,個数口枠の印字,ご請求先顧客コード,ご請求先分類コード,運賃管理番号,クロネコwebコレクトデータ登録,クロネコwebコレクト加盟店番号,クロネコwebコレクト申込受付番号１,クロネコwebコレクト申込受付番号２,クロネコwebコレクト申込受付番号３,お届け予定ｅメール利用区分,お届け予定ｅメールe-mailアドレス,入力機種,お届け予定eメールメッセージ,お届け完了eメール利用区分,お届け完了ｅメールe-mailアドレス,お届け完了ｅメールメッセージ,クロネコ収納代行利用区分,収納代行決済ＱＲコード印刷,収納代行請求金額(税込),収納代行内消費税額等,収納代行請求先郵便番号,収納代行請求先住所,収納代行請求先住所（アパートマンション名）,収納代行請求先会社・部門名１,収納代行請求先会社・部門名２,収納代行請求先名(漢字),収納代行請求先名(カナ),収納代行問合せ先名(漢字),収納代行問合せ先郵便番号,収納代行問合せ先住所,収納代行問合せ先住所（アパートマンション名）,収納代行問合せ先電話番号,収納代行管理番号,収納代行品名,収納代行備考,複数口くくりキー,検索キータイトル１,検索キー１,検索キータイトル２,検索キー２,検索キータイトル３,検索キー３,検索キータイトル４,検索キー４,検索キータイトル５,検索キー５,予備,予備,投函予定メール利用区分,投函予定メールe-mailアドレス,投函予定メールメッセージ,投函完了メール（お届け先宛）利用区分,投函完了メール（お届け先宛）e-mailアドレス,投函完了メール（お届け先宛）メールメッセージ,投函完了メール（ご依頼主宛）利用区分,投函完了メール（ご依頼主宛）e-mailアドレス,投函完了メール（ご依頼主宛）メールメッセージ""".split(",")

EHIDEN_IMPORT = """住所録コード,お届け先電話番号,お届け先郵便番号,お届け先住所１,お届け先住所２,お届け先住所３,お届け先名称１,お届け先名称２,お客様管理ナンバー,お客様コード,部署・担当者,荷送人電話番号,ご依頼主電話番号,ご依頼主郵便番号,ご依頼主住所１,ご依頼主住所２,ご依頼主名称１,ご依頼主名称２,荷姿コード,品名１,品名２,品名３,品名４,品名５,出荷個数,便種（スピードで選択）,便種（商品）,配達日,配達指定時間帯,配達指定時間（時分）,代引金額,消費税,決済種別,保険金額,保険金額印字,指定シール①,指定シール②,指定シール③,営業店止め,ＳＲＣ区分,営業店コード,元着区分""".split(",")

YUPRIR_IMPORT = """お客様側管理番号,発送予定日,発送予定時間区分,出荷期限日,到着期限日,郵便種別,保冷種別,元／着払／代引,書留／セキュリティ／特定記録種別,配達時間帯指定郵便種別,送り状種別,お届け先 コード,お届け先 郵便番号,お届け先 住所１,お届け先 住所２,お届け先 住所３,お届け先 名称１,お届け先 名称２,お届け先 敬称区分,お届け先 電話番号,お届け先 メールアドレス１""".split(",")

RAKUTEN_ORDERS = """受注番号,受注ステータス,注文日時,注文者名字,注文者名前,メールアドレス,配送方法,お荷物伝票番号,送付先郵便番号１,送付先郵便番号２,送付先住所：都道府県,送付先住所：都市区,送付先住所：町以降,送付先名字,送付先名前,送付先名字フリガナ,送付先名前フリガナ,送付先電話番号１,送付先電話番号２,送付先電話番号３,商品ID,商品名,商品番号,単価,個数,配送会社""".split(",")

sheets = {}
expected = {}

def cells(header, values):
    """A row in the header's order: each value under its column (the first of that name), the rest empty."""
    row = [""] * len(header)
    for name, value in values.items():
        row[header.index(name)] = value
    return row

def add(name, header, rows, layout, parcels, encoding="cp932", separator=",", above=(), below=(), refusal=None):
    lines = [list(a) for a in above] + [header] + [list(b) for b in below] + rows
    sheets[name] = (lines, encoding, separator)
    # A sheet of recipients without a column for their e-mail is imported with a warning.
    warned = any("name" in p for p in parcels) and not any("email" in p for p in parcels)
    expected[name] = {"layout": layout, "columns": len(header), "header_row": len(above) + 1, "parcels": parcels,
                      "warned": warned}
    if refusal:
        expected[name]["refusal"] = refusal

def parcel(digits, carrier, reference=None, name=None, email=None, shipped_on=None, telephone=None, postcode=None,
           address=None):
    return {k: v for k, v in dict(number=digits, carrier=carrier, reference=reference, name=name, email=email,
                                  shipped_on=shipped_on, telephone=telephone, postcode=postcode,
                                  address=address).items() if v is not None}

# B2クラウド, issued-label export: Yamato's spellings, then 連携管理番号 and 通知メールアドレス.
n = [number(i) for i in range(1, 4)]
issued = B2_YAMATO + ["連携管理番号", "通知メールアドレス"]
add("b2-issued.csv", issued, [
    cells(issued, {"お客様管理番号": "B2-1001", "送り状種類": "0", "伝票番号": n[0], "出荷予定日": "2026/12/05",
                   "お届け先電話番号": "090-1111-0001", "お届け先郵便番号": "1500001", "お届け先住所": "東京都渋谷区神宮前1-1",
                   "お届け先住所（アパートマンション名）": "くろねこハイツ101", "お届け先名": "山田 花子", "品名１": "靴",
                   "お届け予定ｅメールe-mailアドレス": "hanako@example.jp"}),
    cells(issued, {"お客様管理番号": "B2-1002", "送り状種類": "7", "伝票番号": n[1], "出荷予定日": "2026/12/05",
                   "お届け先名": "佐藤 一郎", "投函予定メールe-mailアドレス": "ichiro@example.jp"}),
    cells(issued, {"お客様管理番号": "B2-1003", "送り状種類": "0", "伝票番号": n[2], "出荷予定日": "2026/12/06",
                   "お届け先名": "鈴木 次郎", "通知メールアドレス": "jiro@example.jp"}),
], "B2クラウド 発行済みデータ", [
    parcel(n[0], "yamato", "B2-1001", "山田 花子", "hanako@example.jp", "2026-12-05", "090-1111-0001", "150-0001",
           "東京都渋谷区神宮前1-1 くろねこハイツ101"),
    parcel(n[1], "yamato", "B2-1002", "佐藤 一郎", "ichiro@example.jp", "2026-12-05"),
    parcel(n[2], "yamato", "B2-1003", "鈴木 次郎", "jiro@example.jp", "2026-12-06"),
])

# B2クラウド in Yamato's own spellings, UTF-8 with a byte order mark.
n = [number(i) for i in range(11, 13)]
add("b2-yamato.csv", B2_YAMATO, [
    cells(B2_YAMATO, {"お客様管理番号": "Y-1", "送り状種類": "0", "伝票番号": n[0], "出荷予定日": "20261206",
                      "お届け先名": "田中 三郎", "お届け予定ｅメールe-mailアドレス": "saburo@example.jp"}),
    cells(B2_YAMATO, {"お客様管理番号": "Y-2", "送り状種類": "0", "伝票番号": n[1], "出荷予定日": "2026-12-06",
                      "お届け先名": "高橋 四郎"}),
], "B2クラウド 外部データ（ヤマト運輸の項目名）", [
    parcel(n[0], "yamato", "Y-1", "田中 三郎", "saburo@example.jp", "2026-12-06"),
    parcel(n[1], "yamato", "Y-2", "高橋 四郎", None, "2026-12-06"),
], encoding="utf-8-sig")

# B2クラウド as a shop tool writes it.
n = [number(i) for i in range(21, 23)]
add("b2-shop-tool.csv", B2_SHOP_TOOL, [
    cells(B2_SHOP_TOOL, {"お客様管理番号": "S-1", "送り状種類": "0", "伝票番号": n[0], "出荷予定日": "2026/12/06",
                         "お届け先名": "伊藤 五郎", "お届け完了ｅメールe-mailアドレス": "goro@example.jp"}),
    cells(B2_SHOP_TOOL, {"お客様管理番号": "S-2", "送り状種類": "0", "伝票番号": n[1], "出荷予定日": "2026/12/06",
                         "お届け先名": "渡辺 六子", "お届け予定ｅメールe-mailアドレス": "mutsuko@example.jp"}),
], "B2クラウド 外部データ（ショップツールの項目名）", [
    parcel(n[0], "yamato", "S-1", "伊藤 五郎", "goro@example.jp", "2026-12-06"),
    parcel(n[1], "yamato", "S-2", "渡辺 六子", "mutsuko@example.jp", "2026-12-06"),
])

# e飛伝's shipped data: the number, 出荷日時 with its time, then the import file's columns.
n = [number(i) for i in range(31, 33)]
ehiden = ["お問合せ送り状No", "出荷日時"] + EHIDEN_IMPORT
add("ehiden-export.csv", ehiden, [
    cells(ehiden, {"お問合せ送り状No": n[0], "出荷日時": "2026/12/06 10:15", "お届け先名称１": "中村 七海",
                   "お届け先住所１": "東京都江東区新砂", "お届け先住所２": "2-2-8",
                   "お届け先電話番号": "03-1234-5678", "お客様管理ナンバー": "SG-7001", "品名１": "書籍"}),
    cells(ehiden, {"お問合せ送り状No": n[1], "出荷日時": "2026/12/06 10:16:30", "お届け先名称１": "小林 八雲",
                   "お客様管理ナンバー": "SG-7002"}),
], "e飛伝 出荷実績データ", [
    parcel(n[0], "sagawa", "SG-7001", "中村 七海", None, "2026-12-06", "03-1234-5678", address="東京都江東区新砂2-2-8"),
    parcel(n[1], "sagawa", "SG-7002", "小林 八雲", None, "2026-12-06"),
], encoding="utf-8-sig")

# ゆうプリR's shipping history.
n = [number(i) for i in range(41, 43)]
history = ["お客様側管理番号", "お問い合わせ番号", "仮引受確定作業年月日", "配送完了作業年月日", "配達ステータス集約コード",
           "配達ステータス明細コード"]
add("yupurir-history.csv", history, [
    [f"YP-9001", n[0], "20261206", "", "10", "0A"],
    [f"YP-9002", n[1], "20261205", "20261206", "30", "0C"],
], "ゆうプリR 発送履歴", [
    parcel(n[0], "japanpost", "YP-9001", None, None, "2026-12-06"),
    parcel(n[1], "japanpost", "YP-9002", None, None, "2026-12-05"),
])

# 楽天 RMS 発送明細: the carrier by 楽天's codes.
n = [number(i) for i in range(51, 54)]
rakuten = ["注文番号", "送付先ID", "発送明細ID", "お荷物伝票番号", "配送会社", "発送日"]
add("rakuten-shipping.csv", rakuten, [
    ["123456-20261206-0000001", "1", "1", n[0], "1001", "2026-12-06"],
    ["123456-20261206-0000002", "1", "2", n[1], "1002", "2026-12-06"],
    ["123456-20261206-0000003", "1", "3", n[2], "1003", "2026-12-06"],
], "楽天 RMS 発送明細", [
    parcel(n[0], "yamato", "123456-20261206-0000001", None, None, "2026-12-06"),
    parcel(n[1], "sagawa", "123456-20261206-0000002", None, None, "2026-12-06"),
    parcel(n[2], "japanpost", "123456-20261206-0000003", None, None, "2026-12-06"),
])

# 楽天 RMS order CSV: one row per order line; two lines of one order share its parcel.
n = [number(i) for i in range(61, 63)]
order_line = {"受注番号": "123456-20261206-0000101", "メールアドレス": "a1b2c3@fw.rakuten.ne.jp", "お荷物伝票番号": n[0],
              "送付先郵便番号１": "158", "送付先郵便番号２": "0094", "送付先住所：都道府県": "東京都",
              "送付先住所：都市区": "世田谷区", "送付先住所：町以降": "玉川1-14-1", "送付先名字": "楽天",
              "送付先名前": "花子", "送付先電話番号１": "090", "送付先電話番号２": "1234", "送付先電話番号３": "5678",
              "配送会社": "1001"}
add("rakuten-orders.csv", RAKUTEN_ORDERS, [
    cells(RAKUTEN_ORDERS, dict(order_line, 商品名="緑茶", 個数="1")),
    cells(RAKUTEN_ORDERS, dict(order_line, 商品名="急須", 個数="1")),
    cells(RAKUTEN_ORDERS, {"受注番号": "123456-20261206-0000102", "お荷物伝票番号": n[1], "送付先名字": "市場",
                           "送付先名前": "太郎", "配送会社": "1002", "商品名": "海苔"}),
], "楽天 RMS 受注データ", [
    parcel(n[0], "yamato", "123456-20261206-0000101", "楽天 花子", "a1b2c3@fw.rakuten.ne.jp", None, "090-1234-5678",
           "158-0094", "東京都世田谷区玉川1-14-1"),
    parcel(n[1], "sagawa", "123456-20261206-0000102", "市場 太郎"),
])

# Amazon's 出荷通知: tab-separated Shift_JIS, a TemplateType row above the headers, English keys below them.
n = [number(i) for i in range(71, 73)]
amazon = ["注文番号", "注文商品番号", "出荷数", "出荷日", "配送業者コード", "配送業者名", "お問合わせ伝票番号", "配送方法"]
add("amazon-shipping.txt", amazon, [
    ["250-1234567-1234567", "12345678901234", "1", "2026-12-06", "Japan Post", "", n[0], "ゆうパケット"],
    ["250-7654321-7654321", "43210987654321", "2", "2026-12-06", "Other", "佐川急便", n[1], "飛脚宅配便"],
], "Amazon 出荷通知", [
    parcel(n[0], "japanpost", "250-1234567-1234567", None, None, "2026-12-06"),
    parcel(n[1], "sagawa", "250-7654321-7654321", None, None, "2026-12-06"),
], separator="\t", above=[["TemplateType=OrderFulfillment", "Version=2011.1102", "", "", "", "", "", ""]],
    below=[["order-id", "order-item-id", "quantity", "ship-date", "carrier-code", "carrier-name", "tracking-number",
            "ship-method"]])

# Qoo10's delivery sheet.
n = [number(i) for i in range(81, 83)]
qoo10 = ["配送状態", "カート番号", "注文番号", "配送会社", "送り状番号", "発送日", "受取人名", "受取人電話番号",
         "受取人携帯電話番号", "郵便番号", "住所", "商品名", "数量"]
add("qoo10.csv", qoo10, [
    ["配送中", "900001", "Q-5001", "ヤマト運輸", n[0], "2026/12/06", "加藤 九美", "", "080-9999-0001", "530-0001",
     "大阪府大阪市北区梅田1-1", "マグカップ", "1"],
    ["配送中", "900002", "Q-5002", "佐川急便", n[1], "2026/12/06", "吉田 十和", "06-1234-0000", "", "5300002", "", "皿", "2"],
], "Qoo10 配送データ", [
    parcel(n[0], "yamato", "Q-5001", "加藤 九美", None, "2026-12-06", "080-9999-0001", "530-0001", "大阪府大阪市北区梅田1-1"),
    parcel(n[1], "sagawa", "Q-5002", "吉田 十和", None, "2026-12-06", "06-1234-0000", "530-0002"),
], encoding="utf-8-sig")

# Qoo10's shipping upload (four columns, no layout of its own): read by its headers' common names.
n = [number(i) for i in range(86, 88)]
qoo10_upload = ["注文番号", "配送会社", "送り状番号", "発送日"]
add("qoo10-shipping.csv", qoo10_upload, [
    ["Q-6001", "日本郵便", n[0], "2026/12/06"],
    ["Q-6002", "ヤマト運輸", n[1], "20261206"],
], None, [
    parcel(n[0], "japanpost", "Q-6001", None, None, "2026-12-06"),
    parcel(n[1], "yamato", "Q-6002", None, None, "2026-12-06"),
], encoding="utf-8")

# Yahoo!ショッピング's order data: English field names, the family and given names apart.
n = [number(i) for i in range(91, 93)]
yahoo = ["OrderId", "OrderTime", "ShipLastName", "ShipFirstName", "ShipPhoneNumber", "ShipZipCode", "ShipPrefecture",
         "ShipCity", "ShipAddress1", "ShipAddress2", "ShipMethodName", "ShipCompanyCode", "ShipInvoiceNumber1",
         "ShipInvoiceNumber2", "ShipDate", "BillMailAddress"]
add("yahoo-orders.csv", yahoo, [
    ["store-10001", "2026/12/05 21:00:00", "山本", "十一", "09012340011", "1000001", "東京都", "千代田区", "千代田1-1", "",
     "宅配便", "", n[0], "", "2026/12/06", "juichi@example.jp"],
    ["store-10002", "2026/12/05 22:00:00", "森", "十二", "09012340012", "5300001", "大阪府", "大阪市北区", "梅田2-2",
     "梅田ビル3F", "宅配便", "", n[1], "", "2026/12/06", ""],
], "Yahoo!ショッピング 注文データ", [
    parcel(n[0], None, "store-10001", "山本 十一", "juichi@example.jp", "2026-12-06", "09012340011", "100-0001",
           "東京都千代田区千代田1-1"),
    parcel(n[1], None, "store-10002", "森 十二", None, "2026-12-06", "09012340012", "530-0001",
           "大阪府大阪市北区梅田2-2梅田ビル3F"),
])

# Exports that hold no numbers yet: refused, saying which to use.
add("ehiden-import.csv", EHIDEN_IMPORT, [cells(EHIDEN_IMPORT, {"お届け先名称１": "中村 七海", "お客様管理ナンバー": "SG-1"})],
    "e飛伝の取込データ", [], refusal="出荷実績データ")
add("yupurir-import.csv", YUPRIR_IMPORT, [cells(YUPRIR_IMPORT, {"お客様側管理番号": "YP-1", "お届け先 名称１": "山田"})],
    "ゆうプリRの取込データ", [], refusal="発送履歴")
clickpost = ["お届け先郵便番号", "お届け先氏名", "お届け先敬称", "お届け先住所1行目", "お届け先住所2行目", "お届け先住所3行目",
             "お届け先住所4行目", "内容品"]
add("clickpost-upload.csv", clickpost, [["1500001", "山田 花子", "様", "東京都渋谷区", "神宮前1-1", "", "", "本"]],
    "クリックポストの一括申込データ", [], refusal="お問い合わせ番号")
amazon_orders = ["order-id", "order-item-id", "purchase-date", "payments-date", "buyer-email", "buyer-name", "sku",
                 "product-name", "quantity-purchased", "recipient-name", "ship-address-1", "ship-postal-code"]
add("amazon-orders.txt", amazon_orders, [["250-1", "1", "2026-12-05", "2026-12-05", "x@marketplace.amazon.co.jp", "A",
                                          "SKU", "本", "1", "A", "東京都", "150-0001"]],
    "Amazon の注文レポート", [], separator="\t", refusal="出荷通知")

for name, (lines, encoding, separator) in sheets.items():
    text = "\r\n".join(separator.join(
        f'"{c}"' if (separator == "," and ("," in c or '"' in c)) else c for c in line) for line in lines) + "\r\n"
    with open(name, "wb") as f:
        f.write(text.encode(encoding))
with open("expected.json", "w", encoding="utf-8") as f:
    json.dump(expected, f, ensure_ascii=False, indent=1)
    f.write("\n")
