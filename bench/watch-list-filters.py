"""Listing and narrowing 10,000 watches through the API: `kuroneko serve --demo --min-interval 0` (the
demo's simulator answers every first check at once), 10,000 watches added in ten bulk requests of 1,000,
then (after at most WAIT seconds, 60 by default, for first answers: the summary line says how many had one)
REQUESTS requests of each kind one after another on one
keep-alive connection: the first page unnarrowed, narrowed by family, by text, by forecast day, the summary,
and the whole list as CSV. Prints p50 and p99 of each.

Usage: python3 bench/watch-list-filters.py [REQUESTS]   (from the package root, after `swift build`)
"""
import http.client
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "TLS"))
from peers import FOLDER, numbers, start  # noqa: E402

BINARY = os.environ.get("KURONEKO_BINARY", ".build/debug/kuroneko")


def main():
    requests = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    server, base = start([BINARY, "serve", "--demo", "--port", "0", "--db", os.path.join(FOLDER, "scale.sqlite"),
                          "--min-interval", "0", "--max-concurrent", "16"])
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)

    def call(method, path, body=None):
        connection.request(method, path, body=body, headers={"Content-Type": "application/json"})
        answer = connection.getresponse()
        return answer.status, answer.read()

    try:
        every = numbers(10_000)
        for start_at in range(0, 10_000, 1_000):
            items = [{"number": n, "label": f"Order {i:05d}"} for i, n in enumerate(every[start_at:start_at + 1_000], start_at)]
            status, _ = call("POST", "/v1/watches", json.dumps(items).encode())
            assert status == 200, status
        # First checks beyond the lookup deadline are left to the poller, ten at a time: wait at most WAIT
        # seconds, and say how many had their answer.
        deadline = time.monotonic() + float(os.environ.get("WAIT", "60"))
        while json.loads(call("GET", "/v1/watches/summary")[1])["by_family"]["pending"] > 0:
            if time.monotonic() > deadline:
                break
            time.sleep(1)
        summary = json.loads(call("GET", "/v1/watches/summary")[1])
        print(f"10,000 watches: {summary['by_family']}, forecast {summary['forecast']}")
        kinds = [
            ("first page, unnarrowed", "/v1/watches?limit=100"),
            ("family=transit", "/v1/watches?family=transit&limit=100"),
            ("q=Order 0123", "/v1/watches?q=Order%200123&limit=100"),
            ("forecast=today", "/v1/watches?forecast=today&limit=100"),
            ("summary", "/v1/watches/summary"),
            ("CSV, all 10,000", "/v1/watches?format=csv"),
        ]
        for name, path in kinds:
            times = []
            for _ in range(requests if "CSV" not in name else max(10, requests // 10)):
                began = time.perf_counter()
                status, body = call("GET", path)
                times.append((time.perf_counter() - began) * 1000)
                assert status == 200, (path, status)
            times.sort()
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
            print(f"{name}: {len(times)} requests, p50 {statistics.median(times):.1f} ms, p99 {p99:.1f} ms, "
                  f"{len(body):,} bytes")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
