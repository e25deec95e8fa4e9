"""One owner's list at shop scale, narrowed through the API, on SQLite or PostgreSQL.

WATCHES numbers (100,000 by default) of three carriers (70% Yamato's 12 digits, 15% Sagawa's 10 digits, 15%
Japan Post's 11-digit 書留) go into a new watch list through `kuroneko import --watch` against `kuroneko
simulate` (the store's own recording path: every number's first answer recorded, with a label to search), at
`--min-interval 0`. Then `kuroneko serve` on that list answers REQUESTS requests of each kind (200 by default)
one after another on one kept-alive connection: the first page, each family, a carrier, forecast=today, a text
search, a search by the order number and by the recipient's telephone (each row's record: `order` and `phone`
are recognised by their headers), the summary; then the whole list as CSV (5 times), with the server's resident memory sampled every
5 ms while it is written and sent. Prints p50 and p99 of each, the CSV's time and the growth of resident
memory above what the server held before the first CSV.

Usage: python3 bench/watch-list-100k.py [sqlite|postgres] [WATCHES] [REQUESTS]
       (from the package root, after `swift build -c release`; KURONEKO_BINARY picks another binary; postgres
       starts a throwaway server of its own with scripts/test-postgres, removed at the end unless
       KURONEKO_KEEP_LIST=1; the SQLite list's folder is always left in /tmp)
"""
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "TLS"))
from peers import start  # noqa: E402

BINARY = os.environ.get("KURONEKO_BINARY", ".build/release/kuroneko")
SURNAMES = ["高橋", "髙橋", "山崎", "山﨑", "佐藤", "鈴木", "渡辺", "渡邊", "伊藤", "ﾔﾏﾀﾞ"]


def mixed_numbers(count):
    """Yamato 12 digits (check digit: the first eleven mod 7), Sagawa 10 digits, Japan Post 11 digits (the
    first ten mod 7), in the proportions 70:15:15, all distinct."""
    found = []
    for serial in range(count):
        kind = serial % 20
        if kind < 14:
            eleven = f"{31_000_000_000 + serial * 7_919:011d}"
            found.append(eleven + str(int(eleven) % 7))
        elif kind < 17:
            found.append(f"{4_000_000_000 + serial * 37:010d}")
        else:
            ten = f"{1_000_000_000 + serial * 53:010d}"
            found.append(ten + str(int(ten) % 7))
    return found


def resident_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    engine = sys.argv[1] if len(sys.argv) > 1 else "sqlite"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    folder = tempfile.mkdtemp(prefix="kuroneko-100k-")
    postgres = None
    if engine == "postgres":
        postgres = os.path.join(folder, "pg")
        os.makedirs(postgres)
        os.chmod(folder, 0o777)
        subprocess.run(["scripts/test-postgres", "start", postgres], check=True)
        database = f"postgres://postgres@/postgres?host={postgres}"
    else:
        database = os.path.join(folder, "list.sqlite")
    simulator, simulator_url = start([BINARY, "simulate", "--port", "0"])
    endpoints = f"yamato={simulator_url}/cgi-bin/tneko,sagawa={simulator_url},japanpost={simulator_url}"
    server = None
    try:
        # In sheets of 5,000 rows: one import run queues its whole sheet with the client, whose queue holds
        # 10,000 numbers.
        began = time.monotonic()
        every = mixed_numbers(count)
        for first in range(0, count, 5_000):
            sheet = os.path.join(folder, f"orders-{first}.csv")
            with open(sheet, "w", encoding="utf-8") as file:
                file.write("order,name,phone,tracking\n")
                for index in range(first, min(count, first + 5_000)):
                    file.write(f"A-{index:06d},{SURNAMES[index % len(SURNAMES)]} 様 {index:06d},"
                               f"090-{index // 10_000:04d}-{index % 10_000:04d},{every[index]}\n")
            run = subprocess.run([BINARY, "import", sheet, "--column", "tracking", "--watch", "--label-column",
                                  "name", "--db", database, "--endpoint", endpoints, "--min-interval", "0"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            assert run.returncode == 0, run.stderr.decode()[-2_000:]
        print(f"filled {count:,} watches through import --watch in {time.monotonic() - began:.0f} s")
        if postgres:
            size = subprocess.run(["psql", f"host={postgres} user=postgres dbname=postgres", "-tAc",
                                   "SELECT pg_database_size('postgres')"], capture_output=True, text=True).stdout
            print(f"database: {int(size) / 1e6:.0f} MB, {int(size) / count:,.0f} bytes a watch")
        else:
            size = sum(os.path.getsize(database + suffix) for suffix in ["", "-wal"] if os.path.exists(database + suffix))
            print(f"database file: {size / 1e6:.0f} MB with its WAL, {size / count:,.0f} bytes a watch")

        server, base = start([BINARY, "serve", "--port", "0", "--db", database, "--endpoint", endpoints,
                              "--poll-speed", "0.001"])
        host, port = base.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=120)

        def call(path):
            connection.request("GET", path)
            answer = connection.getresponse()
            return answer.status, answer.read()

        summary = json.loads(call("/v1/watches/summary")[1])
        print(f"{engine}: {summary['total']:,} watches, by family {summary['by_family']}, "
              f"forecast {summary['forecast']}")
        kinds = [("first page", "/v1/watches?limit=100")]
        kinds += [(f"family={family}", f"/v1/watches?family={family}&limit=100")
                  for family in ["pending", "accepted", "transit", "out", "delivered", "problem"]]
        kinds += [
            ("carrier=sagawa", "/v1/watches?carrier=sagawa&limit=100"),
            ("forecast=today", "/v1/watches?forecast=today&limit=100"),
            ("q=髙橋 (a tenth match)", "/v1/watches?q=%E9%AB%99%E6%A9%8B&limit=100"),
            ("q=012345 (one match)", "/v1/watches?q=012345&limit=100"),
            ("q=A-054321 (an order number)", "/v1/watches?q=A-054321&limit=100"),
            ("q=090-0005-4321 (a telephone)", "/v1/watches?q=090-0005-4321&limit=100"),
            ("q=09000054321 (the same, no hyphens)", "/v1/watches?q=09000054321&limit=100"),
            ("q=０９０－０００５－４３２１ (full-width)",
             "/v1/watches?q=%EF%BC%90%EF%BC%99%EF%BC%90%EF%BC%8D%EF%BC%90%EF%BC%90%EF%BC%90%EF%BC%95%EF%BC%8D"
             "%EF%BC%94%EF%BC%93%EF%BC%92%EF%BC%91&limit=100"),
            ("summary", "/v1/watches/summary"),
        ]
        worst = 0.0
        for name, path in kinds:
            times = []
            for _ in range(requests):
                started = time.perf_counter()
                status, body = call(path)
                times.append((time.perf_counter() - started) * 1000)
                assert status == 200, (path, status, body[:200])
            if "(an order" in name or "telephone" in name or "full-width" in name or "no hyphens" in name:
                found = json.loads(body)["watches"]
                assert len(found) == 1 and found[0]["record"]["reference"] == "A-054321", (name, len(found))
            times.sort()
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
            worst = max(worst, p99)
            listed = json.loads(body).get("watches")
            shown = f", {len(listed)} on the first page" if listed is not None else ""
            print(f"{name}: {len(times)} requests, p50 {statistics.median(times):.1f} ms, p99 {p99:.1f} ms, "
                  f"{len(body):,} bytes{shown}")
        print(f"worst p99 of the narrowed lists and the summary: {worst:.1f} ms")

        before = resident_kib(server.pid)
        peak = [before]
        sampling = [True]

        def sample():
            while sampling[0]:
                peak[0] = max(peak[0], resident_kib(server.pid))
                time.sleep(0.005)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        times = []
        for _ in range(5):
            started = time.perf_counter()
            status, body = call("/v1/watches?format=csv")
            times.append(time.perf_counter() - started)
            assert status == 200 and body.count(b"\n") == count + 1, (status, body.count(b"\n"))
        sampling[0] = False
        sampler.join()
        print(f"CSV of all {count:,}: {len(body):,} bytes, {min(times):.2f} s to {max(times):.2f} s "
              f"(median {statistics.median(times):.2f} s); resident memory {before / 1024:.1f} MB before, "
              f"{peak[0] / 1024:.1f} MB at most while streaming: +{(peak[0] - before) / 1024:.1f} MB")
    finally:
        for process in [server, simulator]:
            if process is not None:
                process.terminate()
                process.wait(timeout=30)
        if postgres and os.environ.get("KURONEKO_KEEP_LIST") == "1":
            # Kept for other benches (bench/webapp-table.py): stopped, its data left in place.
            subprocess.run(["scripts/test-postgres", "pause", postgres])
            print(f"kept: scripts/test-postgres resume {postgres}, then --db 'postgres://postgres@/postgres?host={postgres}'")
        elif postgres:
            subprocess.run(["scripts/test-postgres", "stop", postgres])


if __name__ == "__main__":
    main()
