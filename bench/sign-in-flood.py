"""Fair turns at the password door (issue 61): `kuroneko serve --trusted-proxy 127.0.0.1` with one account; for
SECONDS (10 by default) 16 threads send sign-ins with random names as from 203.0.113.5 behind the proxy
(X-Forwarded-For), as fast as they are answered, while a member signs in ten times as from 198.51.100.9. Prints the
member's answers and times, and what the flood was answered.

Usage: python3 bench/sign-in-flood.py KURONEKO_BINARY [SECONDS]
"""
import json
import os
import random
import string
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "TLS"))
from peers import start  # noqa: E402


def sign_in(base, name, password, forwarded_for):
    body = json.dumps({"name": name, "password": password}).encode()
    request = urllib.request.Request(base + "/v1/session", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded_for})
    began = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            status = answer.status
    except urllib.error.HTTPError as error:
        status = error.code
    return status, time.monotonic() - began


def main():
    binary = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10
    folder = tempfile.mkdtemp(prefix="kuroneko-sign-in-flood-")
    database = os.path.join(folder, "list.sqlite")
    subprocess.run([binary, "users", "add", "mama", "--db", database], input="mama-password-2026\n", text=True,
                   check=True, capture_output=True)
    server, base = start([binary, "serve", "--port", "0", "--db", database, "--endpoint", "http://127.0.0.1:9",
                          "--trusted-proxy", "127.0.0.1"])
    flood, stop = {}, threading.Event()
    lock = threading.Lock()

    def guess():
        while not stop.is_set():
            name = "".join(random.choices(string.ascii_lowercase, k=12))
            status, _ = sign_in(base, name, "guess-password", "203.0.113.5")
            with lock:
                flood[status] = flood.get(status, 0) + 1

    try:
        threads = [threading.Thread(target=guess) for _ in range(16)]
        for thread in threads:
            thread.start()
        member = []
        began = time.monotonic()
        for _ in range(10):
            member.append(sign_in(base, "mama", "mama-password-2026", "198.51.100.9"))
            time.sleep(max(0.0, seconds / 10 - member[-1][1]))
        stop.set()
        for thread in threads:
            thread.join()
        within = sum(1 for status, took in member if status == 200 and took < 2)
        print(f"{time.monotonic() - began:.1f} s of flooding from one address behind the proxy: the flood was answered "
              f"{dict(sorted(flood.items()))}; the member's ten sign-ins: {within} answered 200 within 2 s "
              f"({', '.join(f'{status} in {took * 1000:.0f} ms' for status, took in member)})")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
