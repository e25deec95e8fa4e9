"""A missed delivery at each carrier, end to end: `kuroneko simulate` brings a Yamato (持戻（ご不在）), a Sagawa
(↓配達中 ⇒保管中) and a Japan Post (ご不在のため持ち戻り) parcel back to their offices; `kuroneko serve` checks
them and tells a LINE stand-in (--line-origin), an ntfy stand-in and an SMTP receiver (aiosmtpd). Each message
carries the keeping date (the attempt + 7 days), whom to call (the office and telephone the Sagawa and Japan
Post pages name, Yamato's service centre) and that carrier's redelivery page. The simulator's clock is set
so that the attempts were six days ago: the day-before reminder is due, and each parcel's comes once.

Usage: check_missed_delivery.py KURONEKO_BINARY
"""
import datetime
import email
import email.header
import email.policy
import json
import os
import sys
import threading
import urllib.request

from aiosmtpd.controller import Controller

sys.path.insert(0, os.path.dirname(__file__))
from peers import FOLDER, Receiver, api, checked, start  # noqa: E402
from check_channels import Inbox, free_port  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Simulator"))
from simulated_parcels import absent_number  # noqa: E402

JST = datetime.timezone(datetime.timedelta(hours=9))
WAIT = 60
# Whom each carrier's message says to call: the office the simulated Sagawa and Japan Post pages name, Yamato's
# service centre (its page names none).
CALL = {"yamato": ("ヤマト運輸サービスセンター", "0570-200-000"), "sagawa": ("城南営業所", "03-0000-1802"),
        "japanpost": ("高輪郵便局", "03-0000-9902")}


def line_answer(method: str, path: str):
    """LINE's Messaging API as the stand-in answers it: the quota unlimited, nothing used, every push taken."""
    if method == "GET":
        return {"type": "none"} if path.endswith("/quota") else {"totalUsage": 0}
    return {}


def line_texts(line: Receiver) -> list[str]:
    return [message["text"] for _, _, body in list(line.posts) for message in json.loads(body)["messages"]]


def ntfy_texts(ntfy: Receiver) -> list[str]:
    """Each message as its title (RFC 2047 decoded), its link (Click) and its text."""
    return [f"{email.header.make_header(email.header.decode_header(h.get('Title', '')))}\n{h.get('Click')}\n"
            f"{body.decode()}" for _, h, body in list(ntfy.posts)]


def wait_until(condition, what: str):
    """Waits for `condition()` to hold (at most WAIT s), woken by each thing a stand-in receives."""
    deadline = datetime.datetime.now() + datetime.timedelta(seconds=WAIT)
    event = threading.Event()
    while not condition():
        if datetime.datetime.now() > deadline:
            raise AssertionError(f"{what}: not within {WAIT} s")
        event.wait(0.2)  # polling the stand-ins' lists; correctness does not depend on the interval


def set_clock(simulator_url: str, at: datetime.datetime) -> None:
    request = urllib.request.Request(simulator_url + "/admin/clock", method="PUT",
                                     data=json.dumps({"now": at.isoformat(timespec="seconds")}).encode())
    urllib.request.urlopen(request, timeout=10).close()


def mails(inbox: Inbox) -> list[str]:
    with inbox.lock:
        parsed = [email.message_from_bytes(m["content"], policy=email.policy.default) for m in inbox.messages]
    return [f"{m['Subject']}\n{m.get_body(('plain',)).get_content()}" for m in parsed]


def main():
    binary = sys.argv[1]
    now = datetime.datetime.now(JST)
    # The reminder goes out at 09:00 the day before the last day (the attempt's day + 6) and is sent only
    # within a day of that: the attempts are on the day six days before the latest 09:00.
    latest_nine = (now - datetime.timedelta(hours=9)).date()
    attempt_day = latest_nine - datetime.timedelta(days=6)
    kept = attempt_day + datetime.timedelta(days=7)
    epoch = datetime.datetime.combine(attempt_day, datetime.time(18, 0), JST)
    numbers = {carrier: absent_number(carrier) for carrier in ["yamato", "sagawa", "japanpost"]}

    inbox = Inbox()
    smtp = Controller(inbox, hostname="127.0.0.1", port=free_port())
    smtp.start()
    line, ntfy = Receiver(line_answer), Receiver()
    simulator, simulator_url = start([binary, "simulate", "--port", "0", "--speed", "0",
                                      "--start", epoch.isoformat(timespec="seconds")])
    processes = [simulator]
    try:
        set_clock(simulator_url, epoch - datetime.timedelta(hours=5))  # out for delivery, all three
        arguments = [binary, "serve", "--port", "0", "--db", os.path.join(FOLDER, "missed.sqlite"),
                     "--endpoint", f"yamato={simulator_url}/cgi-bin/tneko,sagawa={simulator_url},japanpost={simulator_url}",
                     "--min-interval", "0", "--line-origin", line.origin, "--allow-private-webhooks",
                     "--smtp-url", f"smtp://127.0.0.1:{smtp.port}", "--smtp-from", "kuroneko@example.jp",
                     "--smtp-starttls", "optional"]
        server, base = start(arguments)
        processes.append(server)
        for body in [{"kind": "line", "access_token": "line-token-" + "x" * 40, "to": "U" + "0" * 32, "lang": "ja"},
                     {"kind": "ntfy", "url": ntfy.origin + "/parcels", "lang": "ja"},
                     {"kind": "email", "address": "ichiro@example.jp", "lang": "ja"}]:
            status, channel = api(base, "POST", "/v1/channels", body)
            assert status == 201, (body["kind"], status, channel)
        for carrier, number in numbers.items():
            status, watch = api(base, "POST", "/v1/watches", {"number": number, "label": f"{carrier}の荷物"})
            assert status == 201, (status, watch)
            watch = checked(base, number)
            assert watch["carrier"] == carrier and watch["shipment"]["status"]["code"] == "out_for_delivery", watch

        set_clock(simulator_url, epoch)  # nobody was home
        for carrier, number in numbers.items():
            watch = checked(base, number)
            missed = watch["missed_delivery"]
            assert missed and missed["kept_until"] == kept.isoformat(), (carrier, watch["shipment"]["status"], missed)
            assert (missed["office"]["name"], missed["office"]["telephone"]) == CALL[carrier], (carrier, missed)

        said = f"{kept.month}月{kept.day}日頃まで保管されます。"
        reminded = f"保管期限は{kept.month}月{kept.day}日頃で"

        def channels():
            return [("LINE", line_texts(line)), ("e-mail", mails(inbox)), ("ntfy", ntfy_texts(ntfy))]

        wait_until(lambda: all(sum(said in text for text in texts) >= 3 for _, texts in channels()),
                   "three missed deliveries on every channel")
        # The reminders are the server's minute job's, which also runs as the server starts: started again on
        # the same database, it sends them at once.
        server.terminate()
        server.wait(timeout=20)
        server, base = start(arguments)
        processes.append(server)
        wait_until(lambda: all(sum(reminded in text for text in texts) >= 3 for _, texts in channels()),
                   "three reminders on every channel")
        redelivery = {carrier: next(c for c in api(base, "GET", "/v1/carriers")[1]["carriers"]
                                    if c["id"] == carrier)["redelivery_link"]["url"].replace("{number}", number)
                      for carrier, number in numbers.items()}
        for carrier, number in numbers.items():
            office, telephone = CALL[carrier]
            call = f"{office}（{telephone}）へご依頼ください。"
            for channel, texts in channels():
                mine = [text for text in texts if f"{carrier}の荷物" in text or number in text]
                told = [text for text in mine if said in text]
                reminders = [text for text in mine if reminded in text]
                assert len(told) == 1 and call in told[0] and redelivery[carrier] in told[0], (channel, carrier, mine)
                assert len(reminders) == 1 and call in reminders[0] and redelivery[carrier] in reminders[0], \
                    (channel, carrier, mine)
        print(f"check_missed_delivery: Yamato, Sagawa and Japan Post parcels brought back on {attempt_day}: LINE, "
              f"e-mail and ntfy each said kept until {kept}, whom to call and the redelivery page, and reminded once")
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=20)
        smtp.stop()
        line.http.shutdown()
        ntfy.http.shutdown()


if __name__ == "__main__":
    main()
