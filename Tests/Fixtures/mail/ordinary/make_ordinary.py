#!/usr/bin/env python3
"""Writes the ordinary-mail corpus beside this script: mails that are not shipping notices (newsletters that name
carriers, order confirmations, invoices, receipts, coupons, reservations, tickets, support replies), each holding
a number a careless reader would take for a parcel: a 12-digit number whose check digit holds, after an order,
member, coupon, invoice, receipt, reservation, ticket, JAN or bank label, on the line after one, beside a carrier
named elsewhere, or written in circled digits. The project's own mails: every name, address and number is made
up. Not one of them holds a parcel; the tests expect none. Run it again after changing a case."""

import base64
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def valid(first_eleven: str) -> str:
    """A 12-digit number whose last digit is the first eleven mod 7 (as Yamato's, Sagawa's and ゆうパック's)."""
    return first_eleven + str(int(first_eleven) % 7)


def circled(digits: str) -> str:
    return "".join("⓪①②③④⑤⑥⑦⑧⑨"[int(d)] for d in digits)


def mail(name: str, sender: str, subject: str, text: str, html: bool = False, charset: str = "UTF-8") -> None:
    body = text.replace("\n", "\r\n").encode(charset)
    kind = "html" if html else "plain"
    raw = (
        f"From: {sender}\r\nTo: hanako@example.jp\r\n"
        f"Subject: =?UTF-8?B?{base64.b64encode(subject.encode()).decode()}?=\r\n"
        f"Date: Thu, 03 Dec 2026 09:00:00 +0900\r\nMessage-ID: <{name}@ordinary.kuroneko.test>\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: text/{kind}; charset=\"{charset}\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"
    ).encode() + base64.encodebytes(body).replace(b"\n", b"\r\n")
    with open(os.path.join(HERE, name + ".eml"), "wb") as file:
        file.write(raw)


N = [valid(str(10000000000 + 7919 * i * 1000003 % 89999999999)) for i in range(1, 40)]

mail("newsletter-carrier", "黒猫ストア <news@kuroneko-store.example>", "【黒猫ストア】冬のセールのお知らせ",
     f"いつもご利用ありがとうございます。\n3,980円以上で送料無料（ヤマト運輸でお届け）\n商品コード\n{N[0]}\n"
     f"佐川急便・日本郵便もお選びいただけます。\n")
mail("order-line-after", "ねこ書房 <order@neko-shobo.example>", "ご注文ありがとうございます",
     f"ご注文番号\n{N[1]}\n\nお届けは佐川急便を予定しております。発送時に改めてご連絡いたします。\n")
mail("member", "ポイントクラブ <info@point.example>", "会員登録完了のお知らせ",
     f"会員番号：{N[2]}\nヤマト運輸の宅急便で会員カードをお送りします。\n")
mail("coupon", "黒猫ストア <news@kuroneko-store.example>", "クーポンのプレゼント",
     f"クーポンコード：{N[3]}\nゆうパックでのお届けも送料無料！\n")
mail("invoice", "経理部 <billing@example.co.jp>", "請求書のご送付",
     f"請求書番号 {N[4]}\nご請求金額 12,100円\n請求書は日本郵便にて郵送いたします。\n")
mail("receipt", "カフェ黒猫 <receipt@cafe.example>", "領収書",
     f"領収書番号：{N[5]}\n合計 1,540円\n")
mail("reservation", "ホテル黒猫 <reserve@hotel.example>", "ご予約の確認",
     f"ご予約番号 {N[6]}\nチェックイン 12月20日\nお荷物はヤマト運輸の手ぶらサービスでお送りいただけます。\n")
mail("support-ticket-10", "サポート <support@app.example>", "お問い合わせを受け付けました",
     "お問い合わせ番号：1234567890\n担当者より2営業日以内にご連絡いたします。\n")
mail("support-ticket-12", "サポート <support@app.example>", "Re: 返品について",
     f"お問い合わせ番号：{N[7]}\n返品の受付を承りました。\n")
mail("ticket", "チケット黒猫 <ticket@live.example>", "チケット購入完了",
     f"チケット番号 {N[8]}\n公演日 2027年1月10日\n")
mail("jan", "黒猫ストア <news@kuroneko-store.example>", "入荷のお知らせ",
     f"JANコード：4901234567894\nJAN {N[9]}\nヤマト運輸 ネコポス対応商品です。\n")
mail("bank", "黒猫銀行 <info@bank.example>", "お振込みのご案内",
     f"お振込先口座番号 1234567\n振込受付番号 {N[10]}\n佐川急便の代金引換ではありません。\n")
mail("circled", "黒猫ストア <news@kuroneko-store.example>", "手順のご案内",
     f"ヤマト運輸の営業所受け取り手順 {circled(N[11])}\n①アプリを開く ②番号を入力 ③受け取る\n")
mail("telephone", "佐川急便ファン <fan@example.jp>", "営業所の電話番号",
     "佐川急便 お客様センター 0570010125\nTEL 0312345678 佐川急便\n")
mail("order-html-link", "ねこ書房 <order@neko-shobo.example>", "ご注文内容の確認",
     f'<html><body><p>ご注文ありがとうございます。</p><p><a href="https://neko-shobo.example/order?id={N[12]}">ご注文履歴</a></p>'
     f"<p>配送：ヤマト運輸</p></body></html>", html=True)
mail("point-card", "ポイントクラブ <info@point.example>", "ポイント失効のお知らせ",
     f"ポイントカード番号 {N[13]}\n")
mail("order-id", "ねこモール <store@mall.example>", "ご注文確認",
     "注文ID：nekomall-10000123\nご注文番号 250-1234567-1234567\nゆうパケットで発送します。\n")
mail("payment", "黒猫ペイ <pay@pay.example>", "お支払い番号のお知らせ",
     f"お支払い番号：{N[14]}\nコンビニでお支払いください。ヤマト運輸とは関係ありません。\n")
mail("application", "黒猫保険 <apply@insurance.example>", "お申込み受付完了",
     f"お申込み番号 {N[15]}\n受付番号 {N[16]}\n書類は日本郵便の簡易書留でお送りします。\n")
mail("reservation-carrier-line", "旅行黒猫 <tour@travel.example>", "予約確認",
     f"ヤマト運輸株式会社 予約番号：{N[17]}\n")
mail("serial", "黒猫ソフト <license@soft.example>", "ライセンスキー",
     f"シリアル番号\n{N[18]}\n")
mail("seiri", "黒猫クリニック <clinic@clinic.example>", "受付のお知らせ",
     f"整理番号 {N[19]}\n")
mail("model", "黒猫電器 <shop@denki.example>", "製品登録",
     f"型番：{N[20]}\nゆうパックで修理品をお送りください。\n")
mail("gift", "黒猫ストア <news@kuroneko-store.example>", "ギフトコード",
     f"ギフトコード {N[21]}\n")
mail("date-run", "黒猫カレンダー <cal@calendar.example>", "予定",
     "2026120314300 打ち合わせ（佐川急便の集荷）\n")
mail("member-id", "黒猫ジム <gym@gym.example>", "会員IDのご案内",
     f"会員ID：{N[22]}\n佐川急便で会員証を送付します。\n")
mail("newsletter-html", "黒猫マガジン <mag@magazine.example>", "今週のおすすめ",
     f"<html><body><h1>今週のおすすめ</h1><p>日本郵便のレターパックで全国へ。</p><table><tr><td>品番</td><td>{N[23]}</td></tr>"
     f"<tr><td>価格</td><td>2,980円</td></tr></table><p>商品番号 {N[24]}</p></body></html>", html=True)
mail("card", "黒猫カード <card@card.example>", "ご利用明細",
     f"カード番号 **** **** 1234\n確認番号 {N[25]}\nゆうパックの送料 1,300円\n")
mail("auth-code", "黒猫ID <id@id.example>", "認証番号",
     f"認証番号：{N[26]}\n")
mail("management", "黒猫不動産 <info@realestate.example>", "物件管理のご連絡",
     f"管理番号 {N[27]}\nヤマト運輸の宅配ボックスを設置しました。\n")
mail("order-sjis", "黒猫商店 <shop@shoten.example>", "ご注文確認", 
     f"受注番号：{N[28]}\nお届け予定：佐川急便\n", charset="cp932")
mail("customer-number", "黒猫ガス <gas@gas.example>", "ご使用量のお知らせ",
     f"お客様番号\n{N[29]}\nヤマト運輸のクロネコメンバーズとは別のサービスです。\n")
mail("quoted-reply", "山田 <yamada@example.jp>", "Re: 同窓会",
     f"> 会員番号 {N[30]}\n> 佐川急便で記念品を送ります\nよろしくお願いします。\n")
mail("campaign-entry", "日本郵便 <campaign@post.japanpost.jp>", "キャンペーン応募受付のお知らせ",
     f"日本郵便 ゆうパック冬のキャンペーン\nご応募ありがとうございます。\n日本郵便 応募番号：{N[31]}\n"
     f"抽選番号 {N[32]}\n当選者には日本郵便よりゆうパックでお届けします。\n")
