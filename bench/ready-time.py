"""Time from starting `kuroneko serve` to its READY=1 on NOTIFY_SOCKET (what systemd waits for with
Type=notify), for the release binary: a new database each run, and the same database again.

    python3 bench/ready-time.py [BINARY] [RUNS]   (default .build/package/stage/deb/usr/bin/kuroneko, 20)
"""
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

binary = sys.argv[1] if len(sys.argv) > 1 else ".build/package/stage/deb/usr/bin/kuroneko"
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
folder = tempfile.mkdtemp(prefix="kuroneko-ready-")


def ready_after(database: str) -> float:
    path = os.path.join(folder, "notify")
    if os.path.exists(path):
        os.unlink(path)
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(path)
    receiver.settimeout(30)
    started = time.monotonic()
    server = subprocess.Popen([binary, "serve", "--port", "0", "--db", database],
                              env={**os.environ, "NOTIFY_SOCKET": path},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            message = receiver.recv(4096).decode()
            if message.startswith("READY=1"):
                return time.monotonic() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
        receiver.close()


fresh = [ready_after(os.path.join(folder, f"new-{run}.sqlite")) for run in range(runs)]
again = [ready_after(os.path.join(folder, "new-0.sqlite")) for _ in range(runs)]
for name, times in (("new database", fresh), ("existing database", again)):
    print(f"{name}: median {statistics.median(times) * 1000:.1f} ms, worst {max(times) * 1000:.1f} ms over {runs} runs")
