"""A shop's Shift_JIS export through `kuroneko import`: ROWS rows (10,000 by default) of order number,
customer, tracking number and a note, written in CP932, imported with `--excel --watch --label-column` into a
new SQLite watch list against `kuroneko simulate`, at `--min-interval INTERVAL` (0 by default: the simulator
is the only upstream; 1 is the default politeness toward Yamato). Prints the wall time, the POSTs the
simulator answered, numbers per POST, the summary line, how many rows came back and how many watches the list
holds afterwards.

Usage: python3 bench/import-cp932.py [ROWS] [INTERVAL]   (from the package root, after `swift build`)
"""
import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "TLS"))
from peers import FOLDER, numbers, start  # noqa: E402

BINARY = os.environ.get("KURONEKO_BINARY", ".build/debug/kuroneko")


def posts(simulator_url: str) -> int:
    with urllib.request.urlopen(simulator_url + "/admin/stats", timeout=10) as answer:
        return json.load(answer)["posts"]


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    interval = sys.argv[2] if len(sys.argv) > 2 else "0"
    simulator, simulator_url = start([BINARY, "simulate", "--port", "0"])
    try:
        header = "注文番号,お客様名,送り状番号,メモ"
        body = [f"A-{i:05d},山田 太郎 {i}様,{n},髙橋倉庫・①" for i, n in enumerate(numbers(rows))]
        path = os.path.join(FOLDER, "orders-cp932.csv")
        with open(path, "wb") as file:
            file.write(("\r\n".join([header, *body]) + "\r\n").encode("cp932"))
        database = os.path.join(FOLDER, "import-bench.sqlite")
        before = posts(simulator_url)
        started = time.monotonic()
        run = subprocess.run([BINARY, "import", path, "--column", "送り状番号", "--excel", "--watch", "--label-column",
                              "お客様名", "--db", database, "--endpoint", f"{simulator_url}/cgi-bin/tneko",
                              "--min-interval", interval], capture_output=True)
        elapsed = time.monotonic() - started
        assert run.returncode == 0, run.stderr.decode()[-2_000:]
        sent = posts(simulator_url) - before
        sheet = list(csv.reader(io.StringIO(run.stdout.decode("utf-8-sig"))))
        with sqlite3.connect(database) as connection:
            watched = connection.execute("SELECT count(*) FROM watches").fetchone()[0]
        summary = run.stderr.decode().strip().splitlines()[-1]
        print(f"{rows} CP932 rows, --min-interval {interval}: {elapsed:.1f} s, {sent} POSTs "
              f"({rows / max(sent, 1):.2f} numbers per POST), {len(sheet) - 1} rows back, {watched} watched")
        print(summary)
    finally:
        simulator.terminate()
        simulator.wait(timeout=20)


if __name__ == "__main__":
    main()
