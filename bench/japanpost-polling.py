"""Japan Post asked ten at a time, through a server: `kuroneko serve` watching COUNT Japan Post numbers (13 digits,
which only Japan Post takes) against `kuroneko simulate` standing still, at Japan Post's default politeness (one
request at a time, a second apart). Counts the simulator's Japan Post requests and times them: the first checks
(every number new to the server), every number checked again with nothing changed, and again after the
simulator's clock moved three hours (some numbers moved on).

Usage: python3 bench/japanpost-polling.py KURONEKO_BINARY [COUNT]
"""
import concurrent.futures
import datetime
import json
import os
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "TLS"))
from peers import api, start  # noqa: E402


def japan_post_requests(simulator_url: str) -> int:
    with urllib.request.urlopen(simulator_url + "/admin/stats", timeout=10) as answer:
        return json.load(answer).get("carriers", {}).get("japanpost", {}).get("requests", 0)


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    folder = tempfile.mkdtemp(prefix="kuroneko-japanpost-")
    epoch = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    simulator, simulator_url = start([binary, "simulate", "--port", "0", "--speed", "0",
                                      "--start", epoch.isoformat()])
    server, base = start([binary, "serve", "--port", "0", "--db", os.path.join(folder, "list.sqlite"),
                          "--endpoint", f"yamato={simulator_url}/cgi-bin/tneko,sagawa={simulator_url},"
                                        f"japanpost={simulator_url}"])
    numbers = [f"{4_000_000_000_000 + index * 7_919:013d}" for index in range(count)]

    def check_all(label: str):
        before, started = japan_post_requests(simulator_url), time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=10) as pool:  # the refreshes the server takes at once
            answers = list(pool.map(lambda number: api(base, "POST", f"/v1/watches/{number}/refresh"), numbers))
        refused = [body for status, body in answers if status != 200]
        assert not refused, f"{len(refused)} refreshes refused, the first: {refused[0]}"
        requests, seconds = japan_post_requests(simulator_url) - before, time.monotonic() - started
        print(f"{label}: {requests} Japan Post requests for {count} numbers ({requests / count:.2f} a number) "
              f"in {seconds:.1f} s: {count / seconds * 3600:,.0f} numbers an hour at this pace")

    def unchecked() -> int:
        left, cursor = 0, None
        while True:
            status, page = api(base, "GET", "/v1/watches?limit=500" + (f"&cursor={cursor}" if cursor else ""))
            left += sum(1 for watch in page["watches"] if not watch["checked_at"])
            cursor = page["next_cursor"]
            if not cursor:
                return left

    try:
        before, started = japan_post_requests(simulator_url), time.monotonic()
        for first in range(0, count, 1_000):
            status, body = api(base, "POST", "/v1/watches", [{"number": n} for n in numbers[first:first + 1_000]])
            assert status in (200, 201, 207), (status, str(body)[:300])
        # The server checks each new watch at once: until every one has its first answer.
        while unchecked():
            time.sleep(0.5)
        requests, seconds = japan_post_requests(simulator_url) - before, time.monotonic() - started
        print(f"first checks by the server, every number new to it: {requests} Japan Post requests for {count} "
              f"numbers ({requests / count:.2f} a number) in {seconds:.1f} s")
        check_all("checked again, nothing changed")
        later = epoch + datetime.timedelta(hours=3)
        request = urllib.request.Request(simulator_url + "/admin/clock", method="PUT",
                                         data=json.dumps({"now": later.isoformat()}).encode())
        urllib.request.urlopen(request, timeout=10).close()
        check_all("three hours on, some moved")
    finally:
        for process in [server, simulator]:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
