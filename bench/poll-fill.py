"""How full the poller's POSTs are at a given list size, and how late it finds changes.

`kuroneko simulate --speed SPEED` and `kuroneko serve --poll-speed SPEED` (both clocks sped up alike), WATCHES
watches added in bulk through the API; once every first check is recorded (at most 120 s), the poller runs on
its own for SECONDS: the POSTs the simulator answered, the numbers the poller checked (`/metrics`), POSTs per
polled number (0.100 is ten numbers in every POST), then how late each change was found as a share of its
status's interval (bench/watch-latency.py).

Usage: python3 bench/poll-fill.py WATCHES [SPEED] [SECONDS]   (from the package root; KURONEKO_BINARY picks
the binary, .build/release/kuroneko by default)
"""
import json
import os
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "TLS"))
from peers import FOLDER, api, numbers, start  # noqa: E402

BINARY = os.environ.get("KURONEKO_BINARY", ".build/release/kuroneko")


def read(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read().decode()


def stats(simulator: str) -> dict:
    return json.loads(read(simulator + "/admin/stats"))


def checks(server: str) -> int:
    for line in read(server + "/metrics").splitlines():
        if line.startswith("kuroneko_poller_checks_total "):
            return int(float(line.split()[1]))
    raise AssertionError("no kuroneko_poller_checks_total in /metrics")


def main():
    watches = int(sys.argv[1])
    speed = sys.argv[2] if len(sys.argv) > 2 else "30"
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 60
    simulator, simulator_url = start([BINARY, "simulate", "--port", "0", "--speed", speed])
    database = os.path.join(FOLDER, f"poll-{watches}.sqlite")
    server, base = start([BINARY, "serve", "--port", "0", "--db", database, "--endpoint",
                          f"{simulator_url}/cgi-bin/tneko", "--poll-speed", speed, "--min-interval", "0.01",
                          "--queue-capacity", "20000", "--queue-deadline", "600"])
    try:
        every = numbers(watches)
        for first in range(0, watches, 1_000):
            status, answer = api(base, "POST", "/v1/watches", [{"number": n} for n in every[first:first + 1_000]])
            assert status == 200, answer
        deadline = time.monotonic() + 120
        while api(base, "GET", "/v1/watches/summary")[1]["by_family"]["pending"] > 0:
            assert time.monotonic() < deadline, "the first checks were not all recorded within 120 s"
            time.sleep(0.2)  # a benchmark waiting for the first checks, not a test
        summary = api(base, "GET", "/v1/watches/summary")[1]
        before = (stats(simulator_url), checks(base))
        time.sleep(seconds)  # the measured window: the poller on its own
        after = stats(simulator_url)
        sent, polled = after["posts"] - before[0]["posts"], checks(base) - before[1]
        sizes = {size: count - before[0]["numbers_per_post"].get(size, 0)
                 for size, count in after["numbers_per_post"].items()}
        print(f"{watches} watches ({summary['active']} active at the start), speed {speed}, {seconds:.0f} s: "
              f"{sent} POSTs for {polled} polled numbers: "
              f"{sent / polled if polled else 0:.3f} POSTs per polled number")
        print("  POSTs by numbers in them: " + ", ".join(f"{size}: {count}" for size, count in
                                                       sorted(sizes.items(), key=lambda item: -int(item[0])) if count))
        latency = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "watch-latency.py"),
                                  database, simulator_url], capture_output=True, text=True, timeout=60)
        print(latency.stdout.strip() or latency.stderr.strip())
    finally:
        for process in (server, simulator):
            process.terminate()
            process.wait(timeout=20)


if __name__ == "__main__":
    main()
