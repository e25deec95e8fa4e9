"""How soon a change found becomes a push at the push service: `kuroneko serve` asking a local simulator,
one web_push channel whose endpoint is a fake push service on 127.0.0.1 (it decrypts each message with
http_ece, as a browser would), PARCELS watched parcels still on their way. The simulator's clock is moved
three days on, then each parcel is refreshed in turn; for each, the time from the refresh being asked to
its push arriving, and from the refresh's answer (the change recorded) to the push arriving.

Usage: python3 bench/push-latency.py [PARCELS]   (from the package root, after `swift build`; needs the
http_ece and cryptography packages, e.g. in .build/schemathesis-venv)
"""
import base64
import http.server
import json
import os
import statistics
import sys
import threading
import time

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "TLS"))
from peers import FOLDER, api, move_simulator_clock, numbers, start  # noqa: E402

BINARY = os.environ.get("KURONEKO_BINARY", ".build/debug/kuroneko")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main():
    parcels = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    arrivals = {}
    sizes = []
    arrived = threading.Condition()
    key = ec.generate_private_key(ec.SECP256R1())
    auth = os.urandom(16)

    class Push(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            at = time.monotonic()
            message = json.loads(http_ece.decrypt(body, private_key=key, auth_secret=auth, version="aes128gcm"))
            with arrived:
                arrivals.setdefault(message["number"], at)
                sizes.append((len(body), len(json.dumps(message, ensure_ascii=False).encode())))
                arrived.notify_all()
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *arguments):
            pass

    service = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Push)
    threading.Thread(target=service.serve_forever, daemon=True).start()
    simulator, simulator_url = start([BINARY, "simulate", "--port", "0"])
    server, base = start([BINARY, "serve", "--port", "0", "--db", os.path.join(FOLDER, "bench.sqlite"),
                          "--endpoint", f"{simulator_url}/cgi-bin/tneko", "--allow-private-webhooks",
                          "--public-url", "https://parcels.example.jp", "--min-interval", "0"])
    try:
        public = key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        status, _ = api(base, "POST", "/v1/channels", {"kind": "web_push", "lang": "ja", "subscription": {
            "endpoint": f"http://127.0.0.1:{service.server_address[1]}/push/bench",
            "keys": {"p256dh": b64url(public), "auth": b64url(auth)}}})
        assert status == 201
        watched = []
        for number in numbers(parcels * 4):
            status, watch = api(base, "POST", "/v1/watches", {"number": number, "label": "ベンチ"})
            assert status == 201, watch
        deadline = time.monotonic() + 60
        while len(watched) < parcels and time.monotonic() < deadline:
            listed = api(base, "GET", "/v1/watches?limit=500")[1]["watches"]
            checked = [w for w in listed if w["checked_at"]]
            if len(checked) == len(listed):
                watched = [w["number"] for w in checked if not w["shipment"]["status"]["terminal"]][:parcels]
                break
            time.sleep(0.1)
        assert len(watched) == parcels, f"only {len(watched)} parcels on their way"
        move_simulator_clock(simulator_url, 3)
        from_asked, from_answered = [], []
        for number in watched:
            asked = time.monotonic()
            status, _ = api(base, "POST", f"/v1/watches/{number}/refresh")
            answered = time.monotonic()
            with arrived:
                arrived.wait_for(lambda: number in arrivals, timeout=30)
            if number not in arrivals:
                continue  # no change for this one (still in the same status three days on)
            from_asked.append(1000 * (arrivals[number] - asked))
            from_answered.append(1000 * (arrivals[number] - answered))
        print(f"{len(from_asked)} pushes: refresh asked → push at the service: median "
              f"{statistics.median(from_asked):.1f} ms, max {max(from_asked):.1f} ms; change recorded (refresh "
              f"answered) → push: median {statistics.median(from_answered):.1f} ms, max {max(from_answered):.1f} ms")
        print(f"sizes: {min(s[0] for s in sizes)}–{max(s[0] for s in sizes)} bytes on the wire for "
              f"{min(s[1] for s in sizes)}–{max(s[1] for s in sizes)}-byte messages")
    finally:
        for process in (server, simulator):
            process.terminate()
            process.wait(timeout=20)
        service.shutdown()


if __name__ == "__main__":
    main()
