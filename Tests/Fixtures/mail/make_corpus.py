#!/usr/bin/env python3
"""Writes the shipping-mail corpus (*.eml, one mbox) and expected.json beside this script: the project's own
mails, shaped after what ../shared/fixtures/mail/FACTS.md shows of each sender (no real mail is copied; every
name, address and number is made up, and every tracking number is made valid by its check digit). Run it again
after changing a case; the tests read the files it wrote."""

import base64
import json
import os
import quopri

HERE = os.path.dirname(os.path.abspath(__file__))


def valid(first_eleven: str) -> str:
    """A 12-digit number whose last digit is the first eleven mod 7."""
    return first_eleven + str(int(first_eleven) % 7)


def eleven(first_ten: str) -> str:
    return first_ten + str(int(first_ten) % 7)


def dashed(number: str) -> str:
    return f"{number[:4]}-{number[4:8]}-{number[8:]}"


def fullwidth(text: str) -> str:
    return "".join(chr(ord(c) - 0x30 + 0xFF10) if c.isdigit() else ("－" if c == "-" else c) for c in text)


def encoded_word(text: str, charset: str = "UTF-8") -> str:
    if charset.upper() == "ISO-2022-JP":
        raw = iso2022jp(text)
    else:
        raw = text.encode(charset)
    return f"=?{charset}?B?{base64.b64encode(raw).decode()}?="


def iso2022jp(text: str) -> bytes:
    """ISO-2022-JP as CP50220 writes it: JIS X 0208 plus the NEC row 13 (①, ㈱) in ESC $ B."""
    out = bytearray()
    mode = "ascii"
    for char in text:
        if ord(char) < 0x80:
            if mode != "ascii":
                out += b"\x1b(B"
                mode = "ascii"
            out += char.encode()
            continue
        sjis = char.encode("cp932")
        first, second = sjis[0], sjis[1]
        # Shift_JIS to JIS X 0208 row/cell.
        if first >= 0xE0:
            first -= 0x40
        row = (first - 0x81) * 2 + 0x21
        if second >= 0x9F:
            row += 1
            cell = second - 0x7E
        else:
            cell = second - 0x1F if second < 0x80 else second - 0x20
        if mode != "jis":
            out += b"\x1b$B"
            mode = "jis"
        out += bytes([row, cell])
    if mode != "ascii":
        out += b"\x1b(B"
    return bytes(out)


def body_bytes(text: str, charset: str) -> bytes:
    text = text.replace("\n", "\r\n")
    if charset.upper() == "ISO-2022-JP":
        return b"\r\n".join(iso2022jp(line) for line in text.split("\r\n"))
    return text.encode(charset)


def part(content_type: str, text: str, charset: str, encoding: str) -> bytes:
    raw = body_bytes(text, charset)
    if encoding == "base64":
        payload = base64.encodebytes(raw).replace(b"\n", b"\r\n")
    elif encoding == "quoted-printable":
        payload = quopri.encodestring(raw.replace(b"\r\n", b"\n")).replace(b"\n", b"\r\n")
    else:
        payload = raw
    head = (f"Content-Type: {content_type}; charset=\"{charset}\"\r\n"
            f"Content-Transfer-Encoding: {encoding}\r\n\r\n").encode()
    return head + payload


def multipart(kind: str, boundary: str, parts: list[bytes]) -> bytes:
    out = f"Content-Type: multipart/{kind}; boundary=\"{boundary}\"\r\n\r\nThis is a multi-part message in MIME format.\r\n".encode()
    for p in parts:
        out += f"\r\n--{boundary}\r\n".encode() + p
    out += f"\r\n--{boundary}--\r\n".encode()
    return out


def message(sender: str, subject: str, message_id: str, date: str, body: bytes, to: str = "hanako@example.jp") -> bytes:
    head = (f"Return-Path: <{sender.split('<')[-1].rstrip('>')}>\r\n"
            f"From: {sender}\r\nTo: {to}\r\nSubject: {subject}\r\nDate: {date}\r\n"
            f"Message-ID: <{message_id}>\r\nMIME-Version: 1.0\r\n").encode()
    return head + body


CASES = []


def case(name, raw, expected_parcels, no_trackable=None, messages=None):
    CASES.append((name, raw, expected_parcels, no_trackable))


# Numbers of the corpus (first eleven digits made up).
Y1 = valid("47080120345")   # Amazon → Yamato
Y2 = valid("37012455601")   # Yamato's own notice
S1 = valid("50114788210")   # Sagawa's notice
Y3 = valid("33401276819")   # Yodobashi → Yamato
S2 = valid("36422018734")   # DMM → Sagawa
P1 = valid("26130049827")   # Rakuten shop → Japan Post (ゆうパック)
Y4 = valid("48219930146")   # Apple, first parcel
P2 = valid("27755010392")   # Apple, second parcel
S3 = valid("40917723508")   # forwarded Sagawa mail
Y5 = valid("45501288370")   # forwarded inline Yamato text
K1 = eleven("1234506789")   # 書留, 11 digits
ORDER12 = valid("10020030040")  # a 12-digit order number that passes the check (a trap)
MEMBER = valid("88800011122")   # a member number that passes the check (a trap)
BARE = valid("31415926535")     # a valid number with no evidence at all (a trap)

# 1. Amazon.co.jp: UTF-8, multipart/alternative, text base64 and HTML quoted-printable; order 3-7-7.
amazon_text = f"""Amazon.co.jp ご注文の発送

注文番号：503-1234567-7654321

お客様の商品はヤマト運輸でお届けいたします。お問い合わせ伝票番号は{Y1}です。なお、伝票番号で配送状況を確認できるようになるまで、時間がかかる場合があります。
"""
amazon_html = f"""<html><body><p class="title">注文番号：<a href="https://www.amazon.co.jp/gp/css/summary/edit.html?orderID=503-1234567-7654321">503-1234567-7654321</a></p>
<p id="trackingText">ご注文商品はヤマト運輸でお届けいたします。お問い合わせ伝票番号は{Y1}です。</p>
<p id="criticalInfo"><strong>木曜日, 12/03</strong></p></body></html>"""
case("amazon-shipped", message(
    "\"Amazon.co.jp\" <shipment-tracking@amazon.co.jp>", encoded_word("Amazon.co.jp でのご注文 1 点が発送されました"),
    "amazon-1@corpus.kuroneko.test", "Tue, 01 Dec 2026 18:02:11 +0900",
    multipart("alternative", "amz-b1", [part("text/plain", amazon_text, "UTF-8", "base64"),
                                        part("text/html", amazon_html, "UTF-8", "quoted-printable")])),
    [{"number": Y1, "carrier": "yamato", "shop": "Amazon.co.jp", "order": "503-1234567-7654321", "evidence": ["label", "carrier_named"]}])

# 2. Amazon's own delivery: no number, said so.
case("amazon-own-delivery", message(
    "Amazon.co.jp <shipment-tracking@amazon.co.jp>", encoded_word("Amazon.co.jp でのご注文 2 点が発送されました"),
    "amazon-2@corpus.kuroneko.test", "Tue, 01 Dec 2026 19:40:00 +0900",
    part("text/plain", "注文番号：249-7654321-1234567\n\nご注文商品はAmazonがお届けします。配送状況は注文履歴からご確認ください。\n", "UTF-8", "8bit")),
    [], "Amazon")

# 3. Yamato's own notice: ISO-2022-JP (with ① from the NEC row), 4-4-4 in the body, the pno= link.
yamato_text = f"""黒猫商店 様からのお荷物を　【12月03日 14時～16時】　にお届け予定です。

① お届け予定の確認・変更
https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno={Y2}

送り状番号：{dashed(Y2)}
ヤマト運輸株式会社
"""
case("yamato-notice", message(
    "ヤマト運輸 <mail@kuronekoyamato.co.jp>".replace("ヤマト運輸", encoded_word("ヤマト運輸", "ISO-2022-JP")),
    encoded_word("お荷物お届けのお知らせ", "ISO-2022-JP"), "yamato-1@corpus.kuroneko.test",
    "Wed, 02 Dec 2026 07:15:00 +0900", part("text/plain", yamato_text, "ISO-2022-JP", "7bit")),
    [{"number": Y2, "carrier": "yamato", "shop": "黒猫商店", "order": None, "evidence": ["link", "label", "carrier_named", "sender"]}])

# 4. Sagawa's notice: ISO-2022-JP, the label on one line and the bare number on the next; a telephone.
sagawa_text = f"""佐川急便をご利用いただき、ありがとうございます。
お荷物の配達が完了しましたのでお知らせいたします。

◆お問い合わせ送り状No.
{S1}
◆お届け完了日時
2026/12/01（火） 11:18
◆配達担当営業所
荒川営業所 TEL 03-5555-0199
"""
case("sagawa-delivered", message(
    "info-nimotsu@sagawa-exp.co.jp", encoded_word("【佐川急便配達完了通知サービス】お荷物お届け完了のお知らせ", "ISO-2022-JP"),
    "sagawa-1@corpus.kuroneko.test", "Tue, 01 Dec 2026 11:20:00 +0900",
    part("text/plain", sagawa_text, "ISO-2022-JP", "7bit")),
    [{"number": S1, "carrier": "sagawa", "shop": "佐川急便", "order": None, "evidence": ["label", "carrier_named", "sender"]}])

# 5. Yodobashi: Shift_JIS base64; a 10-digit order number, U+3000 padding, the label 配達受付番号（伝票番号）.
yodobashi_text = f"""ヨドバシ・ドット・コムをご利用いただき、ありがとうございます。

【ご注文番号】　7224945591
【配達について】
　今回の配達：ヤマト運輸　宅急便
　配達受付番号（伝票番号）：{Y3}
▼ヤマト運輸ホームページ
http://toi.kuronekoyamato.co.jp/cgi-bin/tneko?type=1&no01={Y3}
"""
case("yodobashi-shipped", message(
    "otodoke@yodobashi.com", encoded_word("ヨドバシ・ドット・コム：ご注文商品出荷のお知らせ", "ISO-2022-JP"),
    "yodobashi-1@corpus.kuroneko.test", "Mon, 30 Nov 2026 21:05:00 +0900",
    part("text/plain", yodobashi_text, "Shift_JIS", "base64")),
    [{"number": Y3, "carrier": "yamato", "shop": "ヨドバシ・ドット・コム", "order": "7224945591", "evidence": ["link", "label", "carrier_named"]}])

# 6. Yodobashi's own delivery: no number.
case("yodobashi-extreme", message(
    "otodoke@yodobashi.com", encoded_word("ヨドバシ・ドット・コム：ご注文商品出荷のお知らせ", "ISO-2022-JP"),
    "yodobashi-2@corpus.kuroneko.test", "Mon, 30 Nov 2026 21:06:00 +0900",
    part("text/plain", "【ご注文番号】　7224945604\n【配達について】\n　今回の配達担当：ヨドバシエクストリームサービス便\n", "ISO-2022-JP", "7bit")),
    [], "ヨドバシエクストリームサービス便")

# 7. DMM: HTML only, UTF-8 quoted-printable with a soft line break inside the link's number.
dmm_html = (f"<html><body><table><tr><td>ご注文番号：BS-27322313</td></tr>"
            f"<tr><td>配送業者：佐川急便</td></tr>"
            f"<tr><td>お問い合わせ番号：{S2}</td></tr>"
            f"<tr><td><a href=\"https://k2k.sagawa-exp.co.jp/p/web/okurijosearch.do?okurijoNo={S2}\">配送状況を確認する</a></td></tr>"
            f"</table></body></html>")
dmm_qp = quopri.encodestring(dmm_html.encode()).decode()
# Break the line in the middle of the link's number, as a mail program would at 76 characters.
link_at = dmm_qp.index(f"okurijoNo=3D{S2}") + len("okurijoNo=3D") + 5
dmm_qp = dmm_qp[:link_at] + "=\n" + dmm_qp[link_at:]
dmm_body = ("Content-Type: text/html; charset=\"UTF-8\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
            + dmm_qp.replace("\n", "\r\n")).encode()
case("dmm-html-only", message("DMM通販 <info@mail.dmm.com>".replace("DMM通販", encoded_word("DMM通販")),
                              encoded_word("DMM通販：ご注文商品を発送いたしました"), "dmm-1@corpus.kuroneko.test",
                              "Sun, 29 Nov 2026 10:00:00 +0900", dmm_body),
     [{"number": S2, "carrier": "sagawa", "shop": "DMM通販", "order": "BS-27322313", "evidence": ["link", "label", "carrier_named"]}])

# 8. A Rakuten shop: EUC-JP 8bit, bracket labels, a 受注番号 whose parts are digits, telephones and a postcode.
rakuten_text = f"""このたびは当店をご利用いただき誠にありがとうございます。
本日、ご注文の商品を発送いたしました。

[受注番号] 402853-20261201-0220534167
[ショップ名] 白猫雑貨店
[配送会社] 日本郵便（ゆうパック）
[お荷物伝票番号] {dashed(P1)}

白猫雑貨店　〒116-0014 東京都荒川区東日暮里1-2-3
TEL 0120-555-019　受付 10:00-17:00
"""
case("rakuten-shop", message("白猫雑貨店 <shironeko@shop.rakuten.co.jp>".replace("白猫雑貨店", encoded_word("白猫雑貨店", "EUC-JP")),
                             encoded_word("【楽天市場】白猫雑貨店：商品発送のお知らせ", "ISO-2022-JP"),
                             "rakuten-1@corpus.kuroneko.test", "Tue, 01 Dec 2026 15:30:00 +0900",
                             part("text/plain", rakuten_text, "EUC-JP", "8bit")),
     [{"number": P1, "carrier": "japanpost", "shop": "白猫雑貨店", "order": "402853-20261201-0220534167", "evidence": ["label", "carrier_named"]}])

# 9. Apple: multipart/mixed (alternative + an attachment), two parcels of two carriers.
apple_html = f"""<html><body><h1>お客様の商品は配送中です</h1>
<p>ご注文番号: W1234567890</p><p>ご注文日: 2026/11/28</p>
<div class="shipment"><p>配送業者名</p><p>ヤマト運輸</p><p>配達伝票番号</p><p><a href="https://toi.kuronekoyamato.co.jp/cgi-bin/tneko?type=1&amp;no01={Y4}">{Y4}</a></p></div>
<div class="shipment"><p>配送業者名</p><p>日本郵便</p><p>配達伝票番号</p><p>{dashed(P2)}</p></div>
</body></html>"""
apple_text = f"ご注文番号: W1234567890\n配送業者名: ヤマト運輸\n配達伝票番号: {Y4}\n配送業者名: 日本郵便\n配達伝票番号: {dashed(P2)}\n"
png = ("Content-Type: image/png; name=\"logo.png\"\r\nContent-Transfer-Encoding: base64\r\n"
       "Content-Disposition: inline; filename=\"logo.png\"\r\n\r\n"
       + base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(64))).decode() + "\r\n").encode()
case("apple-two-parcels", message(
    "Apple Store <shipping_notification_jp@orders.apple.com>", encoded_word("お客様の商品は配送中です。ご注文番号: W1234567890"),
    "apple-1@corpus.kuroneko.test", "Sat, 28 Nov 2026 09:00:00 +0900",
    multipart("mixed", "apple-m", [multipart("alternative", "apple-a", [part("text/plain", apple_text, "UTF-8", "quoted-printable"),
                                                                      part("text/html", apple_html, "UTF-8", "base64")]), png])),
    [{"number": Y4, "carrier": "yamato", "shop": "Apple Store", "order": "W1234567890", "evidence": ["link", "label", "carrier_named"]},
     {"number": P2, "carrier": "japanpost", "shop": "Apple Store", "order": "W1234567890", "evidence": ["label", "carrier_named"]}])

# 10. Forwarded: an inline forwarded Yamato text, and a Sagawa notice attached as message/rfc822.
inner = message("info-nimotsu@sagawa-exp.co.jp", encoded_word("お荷物お届けのお知らせ", "ISO-2022-JP"),
                "sagawa-2@corpus.kuroneko.test", "Mon, 30 Nov 2026 08:00:00 +0900",
                part("text/plain", f"◆お問い合わせ送り状No.\n{S3}\n", "ISO-2022-JP", "7bit"))
forward_text = f"""転送します。

---------- Forwarded message ---------
From: 黒猫商店 <shop@kuroneko-shoten.example>
Subject: 発送のお知らせ

ヤマト運輸の宅急便で発送しました。
お問い合わせ伝票番号：{fullwidth(dashed(Y5))}
"""
forward = message("Taro <taro@example.jp>", "Fwd: =?UTF-8?B?" + base64.b64encode("発送のお知らせ".encode()).decode() + "?=",
                  "forward-1@corpus.kuroneko.test", "Wed, 02 Dec 2026 12:00:00 +0900",
                  multipart("mixed", "fwd", [part("text/plain", forward_text, "UTF-8", "8bit"),
                                             b"Content-Type: message/rfc822\r\n\r\n" + inner]))
case("forwarded", forward,
     [{"number": Y5, "carrier": "yamato", "shop": "黒猫商店", "order": None, "evidence": ["label", "carrier_named"]},
      {"number": S3, "carrier": "sagawa", "shop": "佐川急便", "order": None, "evidence": ["label", "sender"]}])

# 11. 書留: 11 digits printed ***-**-*****-*, in a shop's plain mail with no carrier link.
kakitome = f"{K1[:3]}-{K1[3:5]}-{K1[5:10]}-{K1[10]}"
case("kakitome", message("shop@tsukue.example", encoded_word("簡易書留で発送しました"), "kakitome-1@corpus.kuroneko.test",
                         "Thu, 26 Nov 2026 16:00:00 +0900",
                         part("text/plain", f"日本郵便の簡易書留で発送いたしました。\nお問い合わせ番号：{kakitome}\n", "UTF-8", "quoted-printable")),
     [{"number": K1, "carrier": "japanpost", "shop": "shop@tsukue.example", "order": None, "evidence": ["label", "carrier_named"]}])

# 12. Traps only: a 12-digit order number and a member number that pass the check, telephones, a postcode,
# and a valid number with no evidence; a Mercari-like mail with no number. Nothing is found.
traps = f"""ご注文ありがとうございます。
ご注文番号：{ORDER12}
会員番号：{MEMBER}
お問い合わせ先 TEL 03-5555-0123 / 0120-555-012
〒116-0014
参考：{BARE}
"""
case("traps", message("info@shop.example", encoded_word("ご注文の確認"), "traps-1@corpus.kuroneko.test",
                      "Thu, 26 Nov 2026 10:00:00 +0900", part("text/plain", traps, "UTF-8", "8bit")), [])
case("mercari-no-number", message("no-reply@mercari.jp", encoded_word("【メルカリ】「黒猫のマグカップ」が発送されました"),
                                  "mercari-1@corpus.kuroneko.test", "Fri, 27 Nov 2026 20:00:00 +0900",
                                  part("text/plain", "商品ID : m12345678901\n取引画面から配送状況をご確認ください。\n", "UTF-8", "base64")), [])

# 13. Yahoo!ショッピング's order mail (its shops write their own shipping mails; none seen): ISO-2022-JP, an order
# ID of store ID + hyphen + digits whose digits, joined across the hyphen, pass the check; a telephone. Nothing.
YAHOO_JOINED = valid("44708012034")
yahoo = f"""ご注文ありがとうございます。
注文ID：hanashop{YAHOO_JOINED[0]}-{YAHOO_JOINED[1:]}
お支払い方法：クレジットカード決済
ストアへのお問い合わせ：TEL 03-5555-0199
発送のご連絡はストアからお送りします。
"""
case("yahoo-order", message(encoded_word("Yahoo!ショッピング", "ISO-2022-JP") + " <shopping-order-master@mail.yahoo.co.jp>",
                            encoded_word("【Yahoo!ショッピング】ご注文の確認", "ISO-2022-JP"),
                            "yahoo-1@corpus.kuroneko.test", "Sat, 28 Nov 2026 09:30:00 +0900",
                            part("text/plain", yahoo, "ISO-2022-JP", "7bit")), [])

# 14. A shop's own Sagawa notice in bracketed labels, the carrier on the line above the number, and its slip
# called 配送伝票 (seen in a real shop's mail: `[運送会社] 佐川急便` then `[配送伝票] 4705…`).
S4 = valid("47051288306")
bracketed = f"""黒猫雑貨店でございます。ご注文の商品を発送いたしました。
[ショップ名] 黒猫雑貨店
[ご注文番号] KN-20261203-0042
[運送会社] 佐川急便
[配送伝票] {dashed(S4)}
[お届け予定] 12月5日
"""
case("shop-bracketed", message("黒猫雑貨店 <info@zakka.example>", encoded_word("【黒猫雑貨店】発送のお知らせ"),
                               "bracketed-1@corpus.kuroneko.test", "Thu, 03 Dec 2026 18:40:00 +0900",
                               part("text/plain", bracketed, "UTF-8", "base64")),
     [{"number": S4, "carrier": "sagawa", "shop": "黒猫雑貨店", "order": "KN-20261203-0042", "evidence": ["label", "carrier_named"]}])

# 15. Other shops' words for the number: 荷物番号 after a colon, 追跡番号 with the number on the next line, and
# お問い合わせ送り状番号 in full-width brackets.
P3 = valid("26240051813")
Y6 = valid("46110224409")
S5 = valid("36018840215")
words = f"""ご注文の3点を3個口で発送しました。
配送会社：日本郵便（ゆうパック）
荷物番号：{P3}

配送会社：ヤマト運輸
追跡番号
{Y6}

配送会社：佐川急便
【お問い合わせ送り状番号】{S5}
"""
case("shop-words", message("黒猫文具 <order@bungu.example>", encoded_word("発送完了のお知らせ"),
                           "words-1@corpus.kuroneko.test", "Thu, 03 Dec 2026 19:10:00 +0900",
                           part("text/plain", words, "UTF-8", "base64")),
     [{"number": P3, "carrier": "japanpost", "shop": "黒猫文具", "order": None, "evidence": ["label", "carrier_named"]},
      {"number": Y6, "carrier": "yamato", "shop": "黒猫文具", "order": None, "evidence": ["label", "carrier_named"]},
      {"number": S5, "carrier": "sagawa", "shop": "黒猫文具", "order": None, "evidence": ["label", "carrier_named"]}])


def main():
    expected = {}
    mbox = b""
    for name, raw, parcels, no_trackable in CASES:
        with open(os.path.join(HERE, name + ".eml"), "wb") as file:
            file.write(raw)
        expected[name] = {"parcels": parcels, "no_trackable": no_trackable}
        if name in ("amazon-shipped", "sagawa-delivered", "traps"):
            # mboxrd: a From_ line, body lines starting with From quoted, a blank line after each message.
            lines = raw.replace(b"\r\n", b"\n").split(b"\n")
            quoted = [b">" + line if line.lstrip(b">").startswith(b"From ") else line for line in lines]
            mbox += b"From MAILER-DAEMON Wed Dec  2 12:00:00 2026\n" + b"\n".join(quoted) + b"\n\n"
    with open(os.path.join(HERE, "three.mbox"), "wb") as file:
        file.write(mbox)
    with open(os.path.join(HERE, "expected.json"), "w", encoding="utf-8") as file:
        json.dump(expected, file, ensure_ascii=False, indent=1, sort_keys=True)
        file.write("\n")


main()
