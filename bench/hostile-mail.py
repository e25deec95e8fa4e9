#!/usr/bin/env python3
"""Writes the hostile mail shapes bench/hostile-mail.sh times: each a single message of SIZE bytes (the upload's
4 MiB or the mailbox's 25 MiB) built to make a careless reader slow or large. Usage: hostile-mail.py DIR SIZE"""
import os
import sys

out, size = sys.argv[1], int(sys.argv[2])


def message(name, content_type, body, encoding="8bit"):
    head = (
        f"From: shop@example.com\r\nTo: you@example.com\r\nSubject: {name}\r\nMessage-ID: <{name}@bench.kuroneko.test>\r\n"
        f"MIME-Version: 1.0\r\nContent-Type: {content_type}\r\nContent-Transfer-Encoding: {encoding}\r\n\r\n"
    ).encode()
    room = size - len(head)
    body = (body * (room // len(body) + 1))[:room]
    with open(os.path.join(out, f"{name}.eml"), "wb") as f:
        f.write(head + body)


html = 'text/html; charset="UTF-8"'
# Carrier links, each closing an <a>: a reader that copies its output at each </a> is quadratic.
message("carrier-links", html, b'<a href="https://jizen.kuronekoyamato.co.jp/jizen/servlet/crjz.b.NQ0010?id=470801203456">x</a>')
# Characters NFKC expands 18 times (U+FDFA) or 4 times (U+3300).
message("nfkc-fdfa", 'text/plain; charset="UTF-8"', "\ufdfa".encode())
message("nfkc-3300", 'text/plain; charset="UTF-8"', "\u3300\u33ff".encode())
# Ampersands with and without a reference after them.
message("ampersands", html, b"&&&&&&&&&&&&&&&&&&&amp;&#x1F600;&#12354;&")
# Tags never closed, comments never closed, and a tag as long as the mail.
message("open-tags", html, b"<<<<a href=<<")
message("open-comments", html, b"<!--<!--")
message("one-long-tag", html, b"<a " + b"x" * 64)
# Latin-1: every byte above 0x7F.
message("latin1", 'text/plain; charset="ISO-8859-1"', bytes(range(0x80, 0x100)) + b"\n")
# Numbers beside a carrier's name, on one line and on many.
message("numbers-one-line", 'text/plain; charset="UTF-8"', "ヤマト運輸 伝票番号 4708-0120-3456 ".encode())
message("numbers-lines", 'text/plain; charset="UTF-8"', "ヤマト運輸 お問い合わせ伝票番号：470801203456\n".encode())
# Base64 of UTF-8 text, and quoted-printable of escapes.
message("base64", 'text/plain; charset="UTF-8"', b"44Ok44Oe44OI6YGL6Ly4IDQ3MDgwMTIwMzQ1Ng==\r\n", "base64")
message("quoted-printable", 'text/plain; charset="UTF-8"', b"=E3=83=A4=E3=83=9E=E3=83=88=\r\n", "quoted-printable")
# ISO-2022-JP escapes without end, and CP932.
message("iso2022", 'text/plain; charset="ISO-2022-JP"', b"\x1b$B%d%^%H\x1b(B\x1b$B")
message("cp932", 'text/plain; charset="Shift_JIS"', "ヤマト運輸\u3000".encode("cp932"))
# Parts: a multipart of many tiny parts (the reader stops at 100).
parts = b"".join(b"--b\r\nContent-Type: text/plain\r\n\r\nx\r\n" for _ in range(10))
message("many-parts", 'multipart/mixed; boundary="b"', parts)
