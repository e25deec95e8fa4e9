"""TLS to every peer, against a certificate authority made here (`cryptography`):

- an upstream that offers only TLS 1.2 with AES128-GCM-SHA256 (RSA key exchange, as Yamato's server is
  reported to) in front of `kuroneko simulate` answers `kuroneko track --ca-file` and `serve --ca-file`;
  without the authority the same lookup is refused, naming the certificate problem;
- https deliveries from `serve --ca-file` to a receiver with a certificate from that authority succeed; one
  whose certificate is for another host name, and one from another authority, are refused, and the refusal is
  named in the channel's delivery record.

Usage: check_tls.py KURONEKO_BINARY
"""
import datetime
import http.server
import ipaddress
import json
import os
import re
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

WAIT = 30
FOLDER = tempfile.mkdtemp(prefix="kuroneko-tls-")


def write(name: str, data: bytes) -> str:
    path = os.path.join(FOLDER, name)
    with open(path, "wb") as file:
        file.write(data)
    return path


def authority(name: str):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                                content_commitment=False, key_encipherment=False,
                                                data_encipherment=False, key_agreement=False, encipher_only=False,
                                                decipher_only=False), critical=True)
                   .sign(key, hashes.SHA256()))
    return key, certificate


def leaf(issuer, host: str, stem: str):
    """A server certificate (RSA, for RSA key exchange) for `host`, signed by `issuer`; its files' paths."""
    issuer_key, issuer_certificate = issuer
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = datetime.datetime.now(datetime.timezone.utc)
    names = [x509.DNSName(host)]
    if host == "localhost":
        names.append(x509.IPAddress(ipaddress.ip_address("127.0.0.1")))
    certificate = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)]))
                   .issuer_name(issuer_certificate.subject).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
                   .add_extension(x509.SubjectAlternativeName(names), critical=False)
                   .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                   .sign(issuer_key, hashes.SHA256()))
    chain = write(f"{stem}.pem", certificate.public_bytes(serialization.Encoding.PEM))
    secret = write(f"{stem}.key", key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                    serialization.NoEncryption()))
    return chain, secret


class Receiver:
    """An https server on 127.0.0.1 with the given certificate: POSTs kept; with `upstream`, each request is
    passed on to it (a TLS front for the simulator) and the cipher each connection used is kept."""

    def __init__(self, chain: str, secret: str, upstream: str | None = None, only_rsa_tls12: bool = False):
        self.posts = []
        self.ciphers = []
        self.changed = threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.changed:
                    receiver.ciphers.append(self.connection.cipher())
                    receiver.posts.append((self.path, dict(self.headers), body))
                    receiver.changed.notify_all()
                if upstream:
                    request = urllib.request.Request(upstream + self.path, data=body, method="POST",
                                                     headers={"Content-Type": self.headers["Content-Type"]})
                    with urllib.request.urlopen(request, timeout=10) as answer:
                        status, answer_body, kind = answer.status, answer.read(), answer.headers["Content-Type"]
                else:
                    status, answer_body, kind = 204, b"", "text/plain"
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(answer_body)))
                self.end_headers()
                self.wfile.write(answer_body)

            def log_message(self, *arguments):
                pass

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(chain, secret)
        if only_rsa_tls12:
            context.minimum_version = ssl.TLSVersion.TLSv1_2
            context.maximum_version = ssl.TLSVersion.TLSv1_2
            context.set_ciphers("AES128-GCM-SHA256")
        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.socket = context.wrap_socket(self.http.socket, server_side=True)
        self.http.handle_error = lambda *arguments: None  # a refused handshake is what some checks expect
        self.port = self.http.server_address[1]
        threading.Thread(target=self.http.serve_forever, daemon=True).start()


def numbers(count: int) -> list[str]:
    """`count` valid Yamato numbers (check digit: the first eleven digits mod 7), none starting 8 or 9."""
    found = []
    for serial in range(count):
        eleven = f"{31_000_000_000 + serial * 7_919:011d}"
        found.append(eleven + str(int(eleven) % 7))
    return found


def start(arguments):
    """A `kuroneko` process whose standard error is read until it says where it listens."""
    process = subprocess.Popen(arguments, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    for line in process.stderr:
        found = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        if found:
            threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
            return process, found.group(1)
    raise AssertionError(f"{arguments[1]} exited ({process.wait()}) before listening")


def api(base, method, path, body=None):
    request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def until(condition, message):
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(message() if callable(message) else message)
        time.sleep(0.05)  # polling the server's API: it has no way to be waited on for a record


def main():
    binary = sys.argv[1]
    trusted = authority("Kuroneko test authority")
    other = authority("Another authority")
    ca_file = write("authority.pem", trusted[1].public_bytes(serialization.Encoding.PEM))

    simulator, simulator_url = start([binary, "simulate", "--port", "0"])
    processes = [simulator]
    try:
        front = Receiver(*leaf(trusted, "localhost", "front"), upstream=simulator_url, only_rsa_tls12=True)
        upstream = f"https://localhost:{front.port}/cgi-bin/tneko"

        # The command line: the lookup over TLS 1.2 with RSA key exchange, and refused without the authority.
        candidates = numbers(20)
        tracked = subprocess.run([binary, "track", "--json", "--endpoint", upstream, "--ca-file", ca_file,
                                  *candidates], capture_output=True, text=True, timeout=60)
        assert tracked.returncode == 0, tracked.stderr
        shipments = json.loads(tracked.stdout)
        assert [s["tracking_number"] for s in shipments] == candidates, tracked.stdout
        # A parcel still on its way, whose next check (three simulated days on) finds a change.
        number = next(s["tracking_number"] for s in shipments if not s["status"]["terminal"])
        cipher, protocol, _ = front.ciphers[-1]
        assert (cipher, protocol) == ("AES128-GCM-SHA256", "TLSv1.2"), front.ciphers[-1]
        refused = subprocess.run([binary, "track", "--endpoint", upstream, "--timeout", "5", "327754459830"],
                                 capture_output=True, text=True, timeout=120)
        assert refused.returncode != 0, refused.stdout
        assert "TLS connection" in refused.stderr and "certificate" in refused.stderr, refused.stderr

        not_pem = write("not-a-certificate.pem", b"hello\n")
        bad = subprocess.run([binary, "track", "--ca-file", not_pem, "327754459830"], capture_output=True, text=True,
                             timeout=30)
        assert bad.returncode == 2 and "holds no PEM certificate" in bad.stderr, (bad.returncode, bad.stderr)
        assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr

        # The server: upstream over that TLS front, deliveries to three https receivers.
        good = Receiver(*leaf(trusted, "localhost", "good"))
        wrong_host = Receiver(*leaf(trusted, "other.example", "wrong-host"))
        wrong_authority = Receiver(*leaf(other, "localhost", "wrong-authority"))
        database = os.path.join(FOLDER, "watches.sqlite")
        server, base = start([binary, "serve", "--port", "0", "--db", database, "--endpoint", upstream,
                              "--ca-file", ca_file, "--allow-private-webhooks"])
        processes.append(server)
        channels = {}
        for name, receiver in [("good", good), ("wrong host", wrong_host), ("wrong authority", wrong_authority)]:
            status, channel = api(base, "POST", "/v1/channels",
                                  {"kind": "webhook", "url": f"https://localhost:{receiver.port}/hook", "lang": "en"})
            assert status == 201, channel
            channels[name] = channel["id"]
        status, _ = api(base, "POST", "/v1/watches", {"number": number})
        assert status == 201
        until(lambda: api(base, "GET", f"/v1/watches/{number}")[1]["checked_at"], "the first check never came")
        moved = urllib.request.Request(simulator_url + "/admin/clock", method="PUT", data=json.dumps(
            {"now": (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=3)).isoformat(timespec="seconds")}).encode())
        urllib.request.urlopen(moved, timeout=10).close()
        refreshed = api(base, "POST", f"/v1/watches/{number}/refresh")
        assert refreshed[0] in (200, 202), refreshed

        def records(name):
            return api(base, "GET", f"/v1/channels/{channels[name]}/deliveries")[1]["deliveries"]

        until(lambda: any(r["state"] == "delivered" for r in records("good")),
              lambda: f"the good receiver got nothing: {records('good')} {api(base, 'GET', f'/v1/watches/{number}/changes')}")
        assert good.posts and good.posts[0][0] == "/hook", good.posts
        until(lambda: records("wrong host") and records("wrong authority"), "the refusals were never recorded")
        host_error = records("wrong host")[0]["error"] or ""
        authority_error = records("wrong authority")[0]["error"] or ""
        assert "certificate of localhost was refused" in host_error and "mismatch" in host_error, host_error
        assert "certificate of localhost was refused" in authority_error and "issuer" in authority_error, authority_error
        assert not wrong_host.posts and not wrong_authority.posts
        print("check_tls: TLS 1.2 AES128-GCM-SHA256 upstream answered (track and serve); https delivery "
              f"delivered; refused: “{host_error}”, “{authority_error}”")
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=20)


if __name__ == "__main__":
    main()
