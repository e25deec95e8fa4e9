"""Web Push from `kuroneko notify-test` read by an independent implementation: a fake push service on
127.0.0.1 receives the message, `http_ece` decrypts it (aes128gcm, RFC 8188/8291) with the browser's keys made
here by `cryptography`, and the VAPID token (RFC 8292) is checked with `cryptography`: its ES256 signature
under the key the server publishes at /v1/push/vapid-key, its audience and its expiry.

Usage: check_push.py KURONEKO_BINARY
"""
import base64
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


received = []


class PushService(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        received.append((self.path, dict(self.headers), body))
        self.send_response(201)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    binary = sys.argv[1]
    service = http.server.HTTPServer(("127.0.0.1", 0), PushService)
    threading.Thread(target=service.serve_forever, daemon=True).start()
    push_port = service.server_address[1]

    browser = ec.generate_private_key(ec.SECP256R1())
    public = browser.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    auth = os.urandom(16)

    database = os.path.join(tempfile.mkdtemp(), "push.sqlite")
    server = subprocess.Popen(
        [binary, "serve", "--demo", "--allow-private-webhooks", "--port", "0", "--db", database],
        stderr=subprocess.PIPE, text=True)
    try:
        port = None
        deadline = time.time() + 20
        while port is None and time.time() < deadline:
            line = server.stderr.readline()
            if "listening on http://127.0.0.1:" in line:
                port = int(line.split("listening on http://127.0.0.1:")[1].split()[0].strip("/,"))
        assert port, "kuroneko serve did not start"
        base = f"http://127.0.0.1:{port}"
        vapid_key = json.load(urllib.request.urlopen(base + "/v1/push/vapid-key"))["public_key"]
        subscription = {"endpoint": f"http://127.0.0.1:{push_port}/push/subscription-1",
                        "keys": {"p256dh": b64url(public), "auth": b64url(auth)}}
        request = urllib.request.Request(
            base + "/v1/channels", method="POST", headers={"Content-Type": "application/json"},
            data=json.dumps({"kind": "web_push", "subscription": subscription, "lang": "en"}).encode())
        channel = json.load(urllib.request.urlopen(request))
        assert channel["kind"] == "web_push" and "subscription-1" not in json.dumps(channel), channel
    finally:
        server.terminate()
        server.wait(timeout=20)

    sent = subprocess.run([binary, "notify-test", str(channel["id"]), "--allow-private", "--db", database],
                          capture_output=True, text=True, timeout=30)
    assert sent.returncode == 0, sent.stderr
    assert len(received) == 1, received
    path, headers, body = received[0]
    assert path == "/push/subscription-1", path
    assert headers["Content-Encoding"] == "aes128gcm", headers
    assert headers["TTL"] == "86400" and headers["Urgency"] == "high", headers

    # The message, decrypted by http_ece with the browser's private key and auth secret.
    plaintext = http_ece.decrypt(body, private_key=browser, dh=None, auth_secret=auth, version="aes128gcm")
    message = json.loads(plaintext)
    assert message["title"] == "Out for Delivery: Test (3277-5445-9830)", message
    assert message["tag"] == "parcel-327754459830", message

    # The VAPID token: ES256 under the published key, for the push service's origin, at most 24 hours.
    token, key = headers["Authorization"].removeprefix("vapid t=").split(", k=")
    assert key == vapid_key, (key, vapid_key)
    head, claims, signature = token.split(".")
    raw = unb64url(signature)
    der = utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    server_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(vapid_key))
    server_key.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    assert json.loads(unb64url(head)) == {"typ": "JWT", "alg": "ES256"}
    decoded = json.loads(unb64url(claims))
    assert decoded["aud"] == f"http://127.0.0.1:{push_port}", decoded
    assert time.time() < decoded["exp"] <= time.time() + 24 * 3600 + 5, decoded
    assert decoded["sub"].startswith("mailto:"), decoded
    print(f"check_push: http_ece decrypted the push ({len(body)} bytes for a {len(plaintext)}-byte message); "
          "the VAPID token verifies")


if __name__ == "__main__":
    main()
