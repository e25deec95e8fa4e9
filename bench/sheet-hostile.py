"""Sheets shaped to cost the server (issue 61): a header and 16 MiB of blank lines, one giant field of 16 MiB, and two
label-tool sheets of ROWS rows (100,000 by default) sent for one list at once while the list is asked for one page
after another. Prints how long each took to answer, what it answered, and the list's p50 and p99 meanwhile.

Usage: python3 bench/sheet-hostile.py KURONEKO_BINARY [ROWS]
"""
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "TLS"))
from peers import start  # noqa: E402

LIMIT = 16 << 20


def sheet(rows, first):
    """A B2クラウド-like export in CP932: 伝票番号 and the shop's columns, numbers from `first` (check digits held)."""
    lines = ["伝票番号,お客様管理番号,お届け先名,品名"]
    for index in range(rows):
        eleven = f"{'389'[index % 3]}{first + index * 7_919:010d}"
        lines.append(f"{eleven}{int(eleven) % 7},K-{index:06d},佐藤 {index},雑貨")
    return ("\r\n".join(lines) + "\r\n").encode("cp932")


def post(base, body):
    request = urllib.request.Request(base + "/v1/watches/import", data=body, method="POST",
                                     headers={"Content-Type": "text/csv"})
    began = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=1_200) as answer:
            status, text = answer.status, answer.read()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read()
    return time.monotonic() - began, status, json.loads(text or b"{}")


def main():
    binary = sys.argv[1]
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    folder = tempfile.mkdtemp(prefix="kuroneko-sheet-hostile-")
    server, base = start([binary, "serve", "--port", "0", "--db", os.path.join(folder, "list.sqlite"), "--endpoint",
                          "http://127.0.0.1:9/cgi-bin/tneko", "--poll-speed", "0.001", "--max-watches-per-owner",
                          str(4 * rows)])
    try:
        header = "伝票番号,品名\r\n".encode()
        took, status, report = post(base, header + b"\n" * (LIMIT - len(header)))
        print(f"a header and {LIMIT - len(header):,} blank lines: {status} in {took:.2f} s "
              f"({report.get('detail') or report.get('rows')})")
        took, status, report = post(base, header + b"9" * (LIMIT - len(header)))
        print(f"one field of {LIMIT - len(header):,} bytes: {status} in {took:.2f} s "
              f"({report.get('detail') or report.get('skipped')})")

        first, second = sheet(rows, 1_000_000_000), sheet(rows, 2_000_000_000)
        results, latencies, done = {}, [], threading.Event()

        def send(name, body):
            results[name] = post(base, body)

        def lists():
            while not done.is_set():
                began = time.monotonic()
                with urllib.request.urlopen(base + "/v1/watches?limit=100", timeout=60) as answer:
                    answer.read()
                latencies.append((time.monotonic() - began) * 1000)
                time.sleep(0.05)

        reader = threading.Thread(target=lists)
        reader.start()
        threads = [threading.Thread(target=send, args=(name, body)) for name, body in (("a", first), ("b", second))]
        for thread in threads:
            thread.start()
            time.sleep(0.5)
        for thread in threads:
            thread.join()
        done.set()
        reader.join()
        latencies.sort()
        for name, (took, status, report) in sorted(results.items()):
            said = report.get("detail") or f"{report.get('rows')} rows, {report.get('watched')} watched"
            print(f"sheet {name} ({rows:,} rows): {status} in {took:.1f} s ({said})")
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        print(f"the list meanwhile: {len(latencies)} pages, p50 {statistics.median(latencies):.1f} ms, p99 {p99:.1f} ms")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
