"""An open list page while nothing changes, and the time a change takes to reach it, in headless Chromium.

`kuroneko serve` watches PARCELS numbers (1,000 by default) against `kuroneko simulate` standing still, its poller
sped up (`--poll-speed 100`) so it checks them again and again and records the same answers. The list page is
opened and left alone for SECONDS (60 by default): what it asked and received meanwhile, from its resource timing
(bytes received: headers and body as sent), and how many checks the server made in that time. Then the
simulator's clock moves a day and one parcel is checked: the time from the check's answer to its card changing.

With VIEW `table` (the default at 1366 px) the page is the table, and the change timed is a parcel removed
through the API, from its removal to the table's row count saying so; with `cards`, the cards.

Usage: python3 bench/webapp-idle.py [PARCELS] [SECONDS] [table|cards]   (KURONEKO_BINARY picks the binary;
release build)
"""
import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "WebApp"))
from server import Server, Simulator, chromium, tracking_numbers  # noqa: E402

PARCELS = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
VIEW = sys.argv[3] if len(sys.argv) > 3 else "table"
ROW_COUNT = "return Number(document.querySelector('#table table')?.getAttribute('aria-rowcount') || 1) - 1"

RECEIVED = """return performance.getEntriesByType('resource')
    .filter((entry) => new URL(entry.name).pathname.startsWith('/v1/'))
    .map((entry) => [new URL(entry.name).pathname, entry.transferSize]);"""


def checks(server) -> int:
    with urllib.request.urlopen(server.url + "/metrics", timeout=10) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith('kuroneko_upstream_requests_total{carrier="yamato"}'):
                return int(float(line.split()[-1]))
    return 0


def main():
    simulator = Simulator("--speed", "0")
    server = Server("--endpoint", f"yamato={simulator.origin}/cgi-bin/tneko", "--min-interval", "0",
                    "--poll-speed", "100", demo=False).start()
    driver = chromium(1366, 900)
    try:
        numbers = tracking_numbers(PARCELS, seed=45)
        for first in range(0, PARCELS, 500):
            status, _ = server.api("POST", "/v1/watches", json.dumps([{"number": n} for n in numbers[first:first + 500]]).encode())
            assert status == 200, status
        for number in numbers[:10]:
            assert server.api("POST", f"/v1/watches/{number}/refresh")[0] == 200
        # Every first check recorded before the page opens: from then on the checks find the same answers.
        pending = lambda: json.loads(server.api("GET", "/v1/watches/summary")[1])["by_family"]["pending"]
        began = time.monotonic()
        while pending() and time.monotonic() - began < 900:
            time.sleep(1)
        print(f"first checks of {PARCELS:,} parcels recorded in {time.monotonic() - began:.0f} s ({pending()} left)")
        driver.get(server.url + "/")
        driver.execute_script(f"localStorage.setItem('kuroneko.view', '{VIEW}')")
        driver.get(server.url + "/")
        shown = lambda: driver.execute_script(
            ROW_COUNT if VIEW == "table" else "return document.querySelectorAll('#cards > li').length")
        deadline = time.monotonic() + 120
        while shown() < PARCELS and time.monotonic() < deadline:
            time.sleep(0.2)
        assert shown() == PARCELS, shown()
        driver.execute_script("performance.clearResourceTimings()")
        before = checks(server)
        time.sleep(SECONDS)
        received = driver.execute_script(RECEIVED)
        made = checks(server) - before
        total = sum(size for _, size in received)
        paths = sorted({path for path, _ in received})
        print(f"idle {SECONDS:.0f} s with {PARCELS:,} parcels while the server made {made:,} checks (same answers): "
              f"{len(received)} requests answered ({', '.join(paths) or 'none'}), {total:,} bytes received: "
              f"{total / SECONDS * 60:,.0f} bytes a minute")

        if VIEW == "table":
            # A change: one parcel removed, from the removal to the table saying one fewer.
            assert server.api("DELETE", f"/v1/watches/{numbers[-1]}")[0] == 204
            removed = time.monotonic()
            while shown() != PARCELS - 1:
                if time.monotonic() - removed > 30:
                    raise AssertionError("the removal did not reach the table in 30 s")
                time.sleep(0.02)
            print(f"a removal on the table {time.monotonic() - removed:.2f} s after it was made")
            return
        # A change: the simulator's clock a day on, then parcels checked one by one until one's answer moved on:
        # from that answer recorded to its card saying so.
        simulator.move_clock(86_400)
        card = "return (document.querySelector(`#cards > li[data-number='${arguments[0]}']`) || {}).textContent"
        label = lambda number: json.loads(server.api("GET", f"/v1/watches/{number}")[1])["shipment"]["status"]["label"]
        for number in numbers[:50]:
            before_label, before_card = label(number), driver.execute_script(card, number)
            server.api("POST", f"/v1/watches/{number}/refresh")
            recorded = time.monotonic()
            if label(number) == before_label:
                continue
            while driver.execute_script(card, number) == before_card:
                if time.monotonic() - recorded > 30:
                    raise AssertionError("the change did not reach the page in 30 s")
                time.sleep(0.02)
            print(f"a recorded change on the page {time.monotonic() - recorded:.2f} s after it was recorded")
            break
    finally:
        driver.quit()
        server.stop()
        simulator.stop()


if __name__ == "__main__":
    main()
