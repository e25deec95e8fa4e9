"""Customer notices at a shop's scale: PARCELS Yamato parcels with recipients' addresses imported into `kuroneko serve`
(release build) with an SMTP server on loopback (aiosmtpd); `kuroneko simulate` standing still half a day after its
epoch, so that about half the parcels are on their way (a `shipped` notice each) and half already delivered
(told nothing); one `kuroneko refresh` queues them. Timed: from the refresh to the last notice received, at
`--notice-rate RATE` (default: the server's default, 5 a second), and how long `/healthz` and a list page take
meanwhile.

Usage: customer-notices.py KURONEKO_BINARY [PARCELS] [RATE]
"""
import json
import sqlite3
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from aiosmtpd.controller import Controller

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "TLS"))
from peers import start  # noqa: E402
from check_channels import free_port  # noqa: E402


class Inbox:
    def __init__(self):
        self.count = 0
        self.last = None
        self.changed = threading.Condition()

    async def handle_DATA(self, server, session, envelope):
        with self.changed:
            self.count += 1
            self.last = time.monotonic()
            self.changed.notify_all()
        return "250 OK"


def number(index):
    eleven = f"{31_000_000_000 + index * 7_919:011d}"
    return eleven + str(int(eleven) % 7)


def timed(url):
    began = time.monotonic()
    urllib.request.urlopen(url, timeout=30).read()
    return (time.monotonic() - began) * 1000


def main():
    binary = sys.argv[1]
    parcels = int(sys.argv[2]) if len(sys.argv) > 2 else 4_000
    rate = sys.argv[3] if len(sys.argv) > 3 else None
    folder = tempfile.mkdtemp(prefix="kuroneko-notices-")
    inbox = Inbox()
    smtp = Controller(inbox, hostname="127.0.0.1", port=free_port())
    smtp.start()
    simulator, simulator_url = start([binary, "simulate", "--port", "0", "--speed", "0"])
    urllib.request.urlopen(urllib.request.Request(simulator_url + "/admin/clock", method="PUT", data=json.dumps(
        {"now": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 12 * 3600))}).encode()), timeout=10)
    port = free_port()
    database = os.path.join(folder, "shop.sqlite")
    endpoint = f"{simulator_url}/cgi-bin/tneko"
    server, base = start([binary, "serve", "--port", str(port), "--db", database, "--endpoint", endpoint,
                          "--min-interval", "0", "--public-url", f"http://127.0.0.1:{port}",
                          "--smtp-url", f"smtp://127.0.0.1:{smtp.port}", "--smtp-from", "shop@example.jp",
                          "--smtp-starttls", "optional"] + (["--notice-rate", rate] if rate else []))
    try:
        settings = {"enabled": True, "milestones": ["shipped", "out_for_delivery"],
                    "shop": {"name": "くろねこ雑貨店", "address": "東京都渋谷区神南1-2-3", "contact": "03-1234-5678"}}
        urllib.request.urlopen(urllib.request.Request(base + "/v1/notices/settings", method="PUT",
                                                      data=json.dumps(settings).encode(),
                                                      headers={"Content-Type": "application/json"}), timeout=30)
        rows = "伝票番号,お届け先名,メールアドレス\r\n" + "".join(
            f"{number(i)},山田 {i},c{i}@example.jp\r\n" for i in range(parcels))
        urllib.request.urlopen(urllib.request.Request(base + "/v1/watches/import", data=rows.encode("cp932"),
                                                      method="POST", headers={"Content-Type": "text/csv"}), timeout=900)
        began = time.monotonic()
        subprocess.run([binary, "refresh", "--quiet", "--db", database, "--endpoint", endpoint, "--min-interval", "0"],
                       check=False, timeout=900)
        queued_after = time.monotonic() - began
        days = json.load(urllib.request.urlopen(base + "/v1/notices/days?days=2", timeout=30))["days"]
        queued = sum(day["pending"] + day["sent"] for day in days)
        health, pages = [], []
        while True:
            with inbox.changed:
                if inbox.count >= queued:
                    break
                inbox.changed.wait(timeout=1)
            health.append(timed(base + "/healthz"))
            pages.append(timed(base + "/v1/watches?limit=100"))
        with sqlite3.connect(database) as db:
            first, last = db.execute("SELECT MIN(created_at), MAX(finished_at) FROM customer_notices "
                                     "WHERE state = 'sent'").fetchone()
        took = last - first
        print(f"{parcels:,} parcels, {queued:,} notices (the refresh done in {queued_after:.1f} s); from the first "
              f"queued to the last sent {took:.1f} s ({queued / took:.2f} a second; --notice-rate "
              f"{rate or 'default (5)'}); meanwhile /healthz median {statistics.median(health):.1f} ms (max "
              f"{max(health):.1f}), a page of 100 watches median {statistics.median(pages):.1f} ms (max {max(pages):.1f})")
    finally:
        server.terminate()
        server.wait()
        simulator.terminate()
        smtp.stop()


if __name__ == "__main__":
    main()
