"""A shop's day of customer notices, end to end, against a real SMTP server (aiosmtpd on loopback):

- 2,000 parcels (Yamato numbers, each with a recipient's name, e-mail and order number) imported as the shop's
  B2クラウド 発行済みデータ (97 columns, Shift_JIS, the e-mails in B2's own columns) through
  `POST /v1/watches/import` into `kuroneko serve --smtp-url --public-url`; `kuroneko simulate` standing still,
  its clock moved two hours at a time over three days and the list refreshed at each step (`kuroneko refresh`).
  Each recipient gets exactly the notices of the milestones the shop chose, in the order the parcel reached them
  (shipped, out for delivery, a missed delivery with its keeping date and redelivery link, delivered), once each;
  none for a parcel already delivered when imported; none for a number on two customers' rows (refused, named);
  each message names its own row's recipient and order; none after the recipient's stop link (its page opened, its
  button posted); a recipient whose server answers 550 is tried once, and the refusal is shown on the parcel.
- Every message read back with Python's `email`: the subject an RFC 2047 encoded word in ISO-2022-JP, the body
  decodes from ISO-2022-JP, the carrier's link and the stop link in it, `List-Unsubscribe` with one click; the
  preview of a sent notice (`POST /v1/notices/preview`) is byte for byte the message received.
- `kill -9` while 500 notices are being sent: after a restart every one arrives, none more than twice (counted per
  Message-ID).

Usage: check_customer_notices.py KURONEKO_BINARY [PARCELS]
"""
import collections
import csv
import datetime
import email
import email.header
import email.policy
import io
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

from aiosmtpd.controller import Controller

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "TLS"))
import peers  # noqa: E402
from peers import FOLDER, Lines, api, start  # noqa: E402
from check_channels import free_port  # noqa: E402

JST = datetime.timezone(datetime.timedelta(hours=9))
START = datetime.datetime(2026, 12, 2, 8, 0, tzinfo=JST)
WAIT = 600
peers.WAIT = WAIT  # a lease to run out and hundreds of messages on two loaded cores
REFUSED = "@refusing.example"
TITLES = {"商品を発送しました": "shipped", "本日お届けにうかがいます": "out_for_delivery", "お届けが完了しました": "delivered",
          "ご不在のためお荷物を持ち帰りました": "missed_delivery"}
CHOSEN = ["shipped", "out_for_delivery", "delivered", "missed_delivery"]


class Inbox:
    """What the SMTP server took: each message's raw bytes, kept in arrival order; one address refused (550)."""

    def __init__(self):
        self.messages = []
        self.refused = 0
        self.by_id = collections.Counter()
        self.changed = threading.Condition()

    async def handle_RCPT(self, server, session, envelope, address, options):
        if address.endswith(REFUSED):
            with self.changed:
                self.refused += 1
            return "550 5.1.1 no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        found = re.search(rb"^Message-ID: (<[^>]+>)", raw, re.MULTILINE | re.IGNORECASE)
        with self.changed:
            self.messages.append((envelope.rcpt_tos[0], raw))
            self.by_id[found.group(1) if found else b"?"] += 1
            self.changed.notify_all()
        return "250 OK"

    def wait(self, until, what):
        with self.changed:
            if not self.changed.wait_for(until, timeout=WAIT):
                raise AssertionError(f"{what}: not within {WAIT} s ({len(self.messages)} messages so far)")

    def ids(self):
        with self.changed:
            return collections.Counter(self.by_id)

    def to(self, address):
        with self.changed:
            return sum(1 for to, _ in self.messages if to == address)


def number(index):
    eleven = f"{31_000_000_000 + index * 7_919:011d}"
    return eleven + str(int(eleven) % 7)


def refused(index):
    """Every 50th recipient's mail server refuses the address (550)."""
    return index % 50 == 7


B2_HEADER = open(os.path.join(os.path.dirname(__file__), "..", "Fixtures", "sheets", "b2-issued.csv"),
                 encoding="cp932").readline().rstrip("\r\n").split(",")
MIXED = ("侵入 太郎", "別人 花子")


def b2_row(values):
    row = [""] * len(B2_HEADER)
    for name, value in values.items():
        row[B2_HEADER.index(name)] = value
    return row


def sheet(count):
    """The shop's B2クラウド 発行済みデータ (97 columns, Shift_JIS): each recipient's e-mail in B2's own column (a
    ネコポス row's in its 投函予定メール column), and one number on two rows of different recipients."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(B2_HEADER)
    for index in range(count):
        address = f"nobody{index}{REFUSED}" if refused(index) else f"customer{index}@example.jp"
        post_box = index % 10 == 3
        writer.writerow(b2_row({
            "お客様管理番号": f"A-{index:05d}", "送り状種類": "7" if post_box else "0", "伝票番号": number(index),
            "出荷予定日": START.strftime("%Y/%m/%d"), "お届け先名": f"山田 {index}",
            ("投函予定メールe-mailアドレス" if post_box else "お届け予定ｅメールe-mailアドレス"): address}))
    for index, name in enumerate(MIXED):
        writer.writerow(b2_row({"お客様管理番号": f"X-{index}", "送り状種類": "0", "伝票番号": number(count),
                                "お届け先名": name, "お届け予定ｅメールe-mailアドレス": f"mixup{index}@example.jp"}))
    return out.getvalue().encode("cp932")


def set_clock(simulator_url, moment):
    request = urllib.request.Request(simulator_url + "/admin/clock", method="PUT",
                                     data=json.dumps({"now": moment.isoformat()}).encode())
    urllib.request.urlopen(request, timeout=10).close()


def refresh(binary, database, endpoint):
    done = subprocess.run([binary, "refresh", "--quiet", "--db", database, "--endpoint", endpoint, "--min-interval", "0"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode in (0, 1), done.stderr[-800:]


def milestones_now(binary, database):
    """Each parcel's milestone as the list shows it, computed here from its status and family; and the parcels going
    back to the shop (or back)."""
    listed = subprocess.run([binary, "list", "--all", "--json", "--db", database], capture_output=True, text=True,
                            timeout=300)
    assert listed.returncode == 0, listed.stderr[-500:]
    found, returning = {}, set()
    for watch in json.loads(listed.stdout):
        shipment = watch.get("shipment") or {}
        code = (shipment.get("status") or {}).get("code")
        family = watch.get("family")
        if family in ("returning", "returned") or code == "returned":
            returning.add(watch["number"])
        if family in ("returning", "returned") or code in ("exception", "returned"):
            found[watch["number"]] = "problem"
        elif code == "available_for_pickup":
            # Held after a missed delivery is the family `problem`; held before any attempt is no milestone.
            found[watch["number"]] = "missed_delivery" if family == "problem" else None
        else:
            found[watch["number"]] = {"info_received": "shipped", "in_transit": "shipped",
                                      "out_for_delivery": "out_for_delivery", "delivered": "delivered",
                                      "attempt_failed": "missed_delivery"}.get(code)
    return found, returning


def parsed(raw):
    return email.message_from_bytes(raw, policy=email.policy.default)


def body_text(message):
    part = next(p for p in message.walk() if p.get_content_type() == "text/plain")
    assert part.get_content_charset() == "iso-2022-jp", part["Content-Type"]
    assert part["Content-Transfer-Encoding"] == "7bit", part["Content-Transfer-Encoding"]
    return part.get_content()


def check_day(binary, count):
    inbox = Inbox()
    smtp = Controller(inbox, hostname="127.0.0.1", port=free_port())
    smtp.start()
    simulator, simulator_url = start([binary, "simulate", "--port", "0", "--speed", "0", "--start", START.isoformat()])
    port = free_port()
    public = f"http://127.0.0.1:{port}"
    database = os.path.join(FOLDER, "notices-day.sqlite")
    endpoint = f"{simulator_url}/cgi-bin/tneko"
    server, base = start([binary, "serve", "--port", str(port), "--db", database, "--endpoint", endpoint,
                          "--min-interval", "0", "--public-url", public, "--smtp-url", f"smtp://127.0.0.1:{smtp.port}",
                          "--smtp-from", "shop@example.jp", "--smtp-starttls", "optional", "--notice-rate", "400"])
    try:
        status, refusal = api(base, "PUT", "/v1/notices/settings", {"enabled": True})
        assert status == 400 and refusal["reason"] == "invalid_notice_settings", refusal
        assert "shop.name" in refusal["detail"], refusal
        settings = {"enabled": True, "shop": {"name": "くろねこ雑貨店", "address": "東京都渋谷区神南1-2-3",
                                               "contact": "03-1234-5678 / help@example.jp"},
                    "milestones": CHOSEN, "language": "ja", "charset": "iso-2022-jp"}
        status, saved = api(base, "PUT", "/v1/notices/settings", settings)
        assert status == 200 and saved["enabled"] and saved["can_send"], saved
        request = urllib.request.Request(base + "/v1/watches/import", data=sheet(count), method="POST",
                                         headers={"Content-Type": "text/csv"})
        with urllib.request.urlopen(request, timeout=900) as answer:
            report = json.load(answer)
        assert report["watched"] == count and report["layout"].startswith("B2クラウド 発行済みデータ, 97 columns"), report
        # The number on two customers' rows is refused, both rows named; neither customer is told anything.
        assert report["repeated"] == 1 and report["skipped"] == 2 and len(report["problems"]) == 2, report
        assert all("for different recipients; refused" in p for p in report["problems"]), report

        # Three days, two hours at a time: every milestone of every parcel is seen at one step or another.
        expected = collections.defaultdict(list)
        indices = {number(index): index for index in range(count)}
        first_seen = {}
        stopped_at = {}
        moment = START
        while moment <= START + datetime.timedelta(hours=72):
            set_clock(simulator_url, moment)
            refresh(binary, database, endpoint)
            found, returning = milestones_now(binary, database)
            for digits, milestone in found.items():
                if digits not in first_seen and milestone is not None:
                    first_seen[digits] = "returning" if digits in returning else milestone
                    # A parcel whose first answer shows it delivered, or going back to the shop, is told nothing.
                    if first_seen[digits] in ("delivered", "returning"):
                        continue
                if milestone in CHOSEN and first_seen.get(digits) not in ("delivered", "returning") \
                        and milestone not in expected[digits]:
                    expected[digits].append(milestone)
            if moment == START + datetime.timedelta(hours=24):
                # Two recipients on their way stop the notices once they have what was sent so far: the page,
                # then its button; nothing after that reaches them.
                going = [d for d in sorted(expected) if expected[d] and expected[d][-1] != "delivered"
                         and not refused(indices[d])][:2]
                assert len(going) == 2, expected
                for digits in going:
                    address = f"customer{indices[digits]}@example.jp"
                    inbox.wait(lambda: inbox.to(address) >= len(expected[digits]), f"the notices so far to {address}")
                    stop_recipient(inbox, base, address)
                    stopped_at[digits] = len(expected[digits])
            moment += datetime.timedelta(hours=2)

        for digits, count_before in stopped_at.items():
            expected[digits] = expected[digits][:count_before]
        # 550: the first notice tried and refused, the address then on the stop list; none received.
        refusals = [d for d in expected if refused(indices[d]) and expected[d]]
        for digits in refusals:
            expected[digits] = []
        total = sum(len(items) for items in expected.values())
        inbox.wait(lambda: len(inbox.messages) >= total, f"{total} notices")
        received = collections.defaultdict(list)
        for to, raw in inbox.messages:
            message = parsed(raw)
            subject = message["Subject"]
            title = next(t for t in TITLES if t in subject)
            digits = re.search(r"(\d{4})-(\d{4})-(\d{4})", subject)
            received["".join(digits.groups())].append(TITLES[title])
            assert to == message["To"] == f"customer{indices[''.join(digits.groups())]}@example.jp", (to, message["To"])
        assert number(count) not in received and number(count) not in expected, "the refused number told someone"
        mismatched = [(d, expected[d], received.get(d, [])) for d in expected if received.get(d, []) != expected[d]]
        assert not mismatched, f"{len(mismatched)} parcels differ, e.g. {mismatched[:5]}"
        assert set(received) <= set(expected), set(received) - set(expected)
        delivered_first = [d for d, m in first_seen.items() if m == "delivered"]
        assert delivered_first and not any(received.get(d) for d in delivered_first), len(delivered_first)
        journeys = collections.Counter(tuple(v) for v in received.values())
        assert journeys[("shipped", "out_for_delivery", "delivered")] > count // 10, journeys
        assert journeys[("shipped", "out_for_delivery", "missed_delivery", "delivered")] > 0, journeys
        assert refusals and inbox.refused == len(refusals), (inbox.refused, len(refusals))
        notices = api(base, "GET", f"/v1/watches/{refusals[0]}/notices")[1]["notices"]
        assert notices[0]["state"] == "refused" and notices[0]["status"] == 550, notices
        assert all(n["state"] == "stopped" for n in notices[1:]), notices
        check_messages(inbox, base, public)
        days = api(base, "GET", "/v1/notices/days?days=30")[1]["days"]
        assert sum(day["sent"] for day in days) == len(inbox.messages), days
        metrics = urllib.request.urlopen(base + "/metrics", timeout=10).read().decode()
        assert f'kuroneko_customer_notices_total{{result="sent"}} {len(inbox.messages)}' in metrics
        print(f"customer notices: {count} parcels, {len(inbox.messages)} notices as expected "
              f"({dict(journeys.most_common(4))}), {len(delivered_first)} delivered when imported told nothing")
    finally:
        server.terminate()
        server.wait(timeout=60)
        simulator.terminate()
        simulator.wait(timeout=60)
        smtp.stop()


def stop_recipient(inbox, base, address):
    """Opens the stop link of the recipient's last notice, then presses the page's button."""
    inbox.wait(lambda: any(to == address for to, _ in inbox.messages), f"a first notice to {address}")
    raw = next(raw for to, raw in reversed(inbox.messages) if to == address)
    message = parsed(raw)
    link = message["List-Unsubscribe"].strip("<>")
    assert link in body_text(message), link
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    with urllib.request.urlopen(link, timeout=10) as page:
        html = page.read().decode()
    token = re.search(r'name="t" value="([^"]+)"', html).group(1)
    form = urllib.parse.urlencode({"t": token.replace("&amp;", "&")}).encode()
    with urllib.request.urlopen(urllib.request.Request(link.split("?")[0], data=form, method="POST"), timeout=10) as done:
        assert "停止しました" in done.read().decode()
    forged = link[:-4] + ("0000" if not link.endswith("0000") else "1111")
    try:
        urllib.request.urlopen(urllib.request.Request(forged.split("?")[0], method="POST",
                                                      data=urllib.parse.urlencode({"t": forged.split("t=")[1]}).encode()),
                               timeout=10)
        raise AssertionError("a forged stop link was taken")
    except urllib.error.HTTPError as error:
        assert error.code == 404, error.code


def check_messages(inbox, base, public):
    """The headers and bodies as a mail program reads them, and one preview against the message received."""
    for to, raw in inbox.messages[:50]:
        message = parsed(raw)
        assert b"=?ISO-2022-JP?B?" in raw.split(b"\r\n\r\n")[0], raw[:400]
        text = body_text(message)
        assert "くろねこ雑貨店" in text and "東京都渋谷区神南1-2-3" in text and "03-1234-5678" in text, text
        assert "https://toi.kuronekoyamato.co.jp/cgi-bin/tneko?type=1&no01=" in text, text
        assert public + "/notices/stop?t=" in text, text
        sender = message["From"].addresses[0]
        assert sender.display_name == "くろねこ雑貨店" and sender.addr_spec == "shop@example.jp", sender
        assert "様" in text.splitlines()[0], text.splitlines()[0]
        # Each message names its own row's recipient and order, never another row's.
        index = int(re.match(r"customer(\d+)@", to).group(1))
        assert f"山田 {index} 様" in text.splitlines()[0] and f"A-{index:05d}" in text, (to, text[:300])
        assert not any(name in text for name in MIXED), text[:300]
    missed = next(raw for _, raw in inbox.messages if "ご不在" in parsed(raw)["Subject"])
    text = body_text(parsed(missed))
    assert "保管されます" in text and "再配達" in text, text
    to, raw = inbox.messages[-1]
    message = parsed(raw)
    digits = "".join(re.search(r"(\d{4})-(\d{4})-(\d{4})", message["Subject"]).groups())
    milestone = TITLES[next(t for t in TITLES if t in message["Subject"])]
    status, preview = api(base, "POST", "/v1/notices/preview", {"number": digits, "milestone": milestone})
    assert status == 200 and preview["queued"], preview
    assert preview["message"].replace("\r\n", "\n").encode() == raw.replace(b"\r\n", b"\n"), (preview["message"][:300], raw[:300])


def check_kill(binary):
    """500 notices; the server killed with SIGKILL while it sends them; every one arrives, none more than twice."""
    count = 500
    inbox = Inbox()
    smtp = Controller(inbox, hostname="127.0.0.1", port=free_port())
    smtp.start()
    simulator, simulator_url = start([binary, "simulate", "--port", "0", "--speed", "0", "--start",
                                      (START + datetime.timedelta(hours=30)).isoformat()])
    port = free_port()
    database = os.path.join(FOLDER, "notices-kill.sqlite")
    endpoint = f"{simulator_url}/cgi-bin/tneko"
    arguments = [binary, "serve", "--port", str(port), "--db", database, "--endpoint", endpoint, "--min-interval", "0",
                 "--public-url", f"http://127.0.0.1:{port}", "--smtp-url", f"smtp://127.0.0.1:{smtp.port}",
                 "--smtp-from", "shop@example.jp", "--smtp-starttls", "optional", "--notice-rate", "25"]
    server, base = start(arguments)
    try:
        api(base, "PUT", "/v1/notices/settings", {
            "enabled": True, "milestones": ["shipped", "out_for_delivery", "delivered", "missed_delivery", "problem"],
            "shop": {"name": "Kuroneko Goods", "address": "1-2-3 Jinnan, Shibuya", "contact": "help@example.jp"},
            "language": "en", "charset": "utf-8"})
        # 500 parcels on their way at the simulator's time: a notice each.
        candidates = [number(10_000 + i) for i in range(1_500)]
        tracked = subprocess.run([binary, "track", "--json", "--endpoint", endpoint, "--min-interval", "0", *candidates],
                                 capture_output=True, text=True, timeout=300)
        moving = [s["tracking_number"] for s in json.loads(tracked.stdout)
                  if s["status"]["code"] in ("info_received", "in_transit", "out_for_delivery")]
        assert len(moving) >= count, (len(moving), tracked.stderr[-300:])
        chosen = moving[:count]
        rows = "伝票番号,メールアドレス\r\n" + "".join(f"{digits},k{i}@example.jp\r\n" for i, digits in enumerate(chosen))
        request = urllib.request.Request(base + "/v1/watches/import", data=rows.encode(), method="POST",
                                         headers={"Content-Type": "text/csv"})
        urllib.request.urlopen(request, timeout=300).close()
        refresh(binary, database, endpoint)
        states = notice_states(base, chosen)
        expected = states["pending"] + states["sent"]
        assert expected == count, states
        inbox.wait(lambda: len(inbox.by_id) >= 100, "100 notices before the kill")
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=60)
        before = len(inbox.ids())
        # What the killed server left pending (those it sent but had not recorded among them), read from its file.
        with sqlite3.connect(database) as db:
            pending = db.execute("SELECT COUNT(*) FROM customer_notices WHERE state = 'pending'").fetchone()[0]
        lines = Lines()
        server, base = start(arguments, lines=lines)
        lines.wait_for(r"^customer_notice id=\d+ .*result=sent", count=pending)
        inbox.wait(lambda: len(inbox.by_id) >= expected, f"all {expected} notices after the restart")
        ids = inbox.ids()
        twice = [i for i, n in ids.items() if n > 1]
        assert max(ids.values()) <= 2, ids.most_common(3)
        after = notice_states(base, chosen)
        assert after["sent"] == expected == len(ids) and after["pending"] == 0, (after, expected, len(ids))
        queued = expected
        print(f"kill -9: {expected} notices each arrived ({len(twice)} twice, none more); "
              f"{before} had arrived before the kill")
    finally:
        server.terminate()
        server.wait(timeout=60)
        simulator.terminate()
        smtp.stop()


def notice_states(base, numbers):
    """How many of the parcels' notices are in each state."""
    states = collections.Counter()
    for digits in numbers:
        for notice in api(base, "GET", f"/v1/watches/{digits}/notices")[1].get("notices", []):
            states[notice["state"]] += 1
    return states


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 2_000
    began = time.monotonic()
    check_day(binary, count)
    check_kill(binary)
    print(f"check_customer_notices: passed in {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
