"""The download and a few searches of a watch list already filled (by bench/watch-list-100k.py, whose folder it
leaves in /tmp): `kuroneko serve` on the list, the whole list as CSV five times, then the summary, an order number
and a telephone searched 200 times each, one after another on one kept-alive connection. Prints the CSV's times and
each request's p50 and p99.

Usage: python3 bench/list-requests.py KURONEKO_BINARY LIST.sqlite
"""
import http.client
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "TLS"))
from peers import start  # noqa: E402


def main():
    binary, database = sys.argv[1], sys.argv[2]
    server, base = start([binary, "serve", "--port", "0", "--db", database, "--endpoint",
                          "http://127.0.0.1:9/cgi-bin/tneko", "--poll-speed", "0.001"])
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=120)

    def call(path):
        connection.request("GET", path)
        answer = connection.getresponse()
        return answer.status, answer.read()

    try:
        times = []
        for _ in range(5):
            started = time.perf_counter()
            status, body = call("/v1/watches?format=csv")
            times.append(time.perf_counter() - started)
            assert status == 200, status
        rows = body.count(b"\n") - 1
        print(f"CSV: {len(body):,} bytes, {rows:,} rows, {min(times):.2f} s to {max(times):.2f} s "
              f"(median {statistics.median(times):.2f} s)")
        for name, path in [("summary", "/v1/watches/summary"), ("q=A-054321", "/v1/watches?q=A-054321&limit=100"),
                           ("q=09000054321", "/v1/watches?q=09000054321&limit=100")]:
            spent = []
            for _ in range(200):
                started = time.perf_counter()
                status, _ = call(path)
                spent.append((time.perf_counter() - started) * 1000)
                assert status == 200, (path, status)
            spent.sort()
            print(f"{name}: p50 {statistics.median(spent):.1f} ms, p99 {spent[int(len(spent) * 0.99)]:.1f} ms")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
