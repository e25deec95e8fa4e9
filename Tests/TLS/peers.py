"""What the TLS and mail checks share: a certificate authority and server certificates made with
`cryptography`, `kuroneko` processes read until they listen, waiting for a line they write (with a deadline),
the API, and valid Yamato numbers."""
import datetime
import http.server
import ipaddress
import json
import os
import re
import subprocess
import tempfile
import threading
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


def numbers(count: int) -> list[str]:
    """`count` valid Yamato numbers (check digit: the first eleven digits mod 7), none starting 8 or 9."""
    found = []
    for serial in range(count):
        eleven = f"{31_000_000_000 + serial * 7_919:011d}"
        found.append(eleven + str(int(eleven) % 7))
    return found


class Lines:
    """What a process writes to standard error, line by line, kept as it comes; a reader waits for a line."""

    def __init__(self):
        self.kept: list[str] = []
        self.changed = threading.Condition()

    def append(self, line: str) -> None:
        with self.changed:
            self.kept.append(line)
            self.changed.notify_all()

    def __iter__(self):
        with self.changed:
            return iter(list(self.kept))

    def mark(self) -> int:
        """Where the lines written from now on begin, for `wait_for(…, since=)`."""
        with self.changed:
            return len(self.kept)

    def wait_for(self, pattern: str, count: int = 1, since: int = 0) -> list[str]:
        """The first `count` lines matching `pattern` (of those from `since` on), once the process has written
        them (at most `WAIT` s)."""
        expression = re.compile(pattern)

        def matching():
            return [line for line in self.kept[since:] if expression.search(line)]

        with self.changed:
            if not self.changed.wait_for(lambda: len(matching()) >= count, timeout=WAIT):
                raise AssertionError(f"no {count} line(s) matching {pattern!r} in {WAIT} s; the last lines: "
                                     f"{self.kept[-5:]}")
            return matching()[:count]


def start(arguments, lines: Lines | None = None):
    """A `kuroneko` process whose standard error is read until it says where it listens; every line it writes
    there goes to `lines` when given."""
    kept = lines if lines is not None else Lines()
    process = subprocess.Popen(arguments, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    for line in process.stderr:
        kept.append(line)
        found = re.search(r"listening on (https?://127\.0\.0\.1:\d+)", line)
        if found:
            threading.Thread(target=lambda: [kept.append(rest) for rest in process.stderr], daemon=True).start()
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


def checked(base: str, number: str) -> dict:
    """The watch of `number` once checked: a refresh answers after the check is recorded."""
    status, watch = api(base, "POST", f"/v1/watches/{number}/refresh")
    assert status == 200 and watch["checked_at"], (status, watch)
    return watch


def move_simulator_clock(simulator_url: str, days: float) -> None:
    """Sets the simulator's clock `days` after the real time."""
    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=days)
    request = urllib.request.Request(simulator_url + "/admin/clock", method="PUT",
                                     data=json.dumps({"now": later.isoformat(timespec="seconds")}).encode())
    urllib.request.urlopen(request, timeout=10).close()


def in_transit(binary: str, endpoint: list[str], count: int = 20) -> str:
    """A number the simulator shows still on its way (so a check days later finds a change)."""
    candidates = numbers(count)
    tracked = subprocess.run([binary, "track", "--json", *endpoint, *candidates], capture_output=True, text=True,
                             timeout=60)
    assert tracked.returncode == 0, tracked.stderr
    shipments = json.loads(tracked.stdout)
    assert [s["tracking_number"] for s in shipments] == candidates, tracked.stdout
    return next(s["tracking_number"] for s in shipments if not s["status"]["terminal"])


class Receiver:
    """A plain-http service on 127.0.0.1 standing in for ntfy, Slack, Discord or LINE: every POST kept as
    (path, headers, body), each request answered 200 with the JSON `answer(method, path)` gives (none by default)."""

    def __init__(self, answer=lambda method, path: None):
        self.posts: list[tuple[str, dict, bytes]] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.reply(answer("GET", self.path))

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    receiver.posts.append((self.path, dict(self.headers), body))
                self.reply(answer("POST", self.path))

            def reply(self, value):
                data = b"" if value is None else json.dumps(value).encode()
                self.send_response(200)
                if value is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *arguments):
                pass

        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def by_path(self) -> dict[str, list[tuple[dict, bytes]]]:
        """The POSTs kept so far, (headers, body) by path."""
        kept: dict[str, list[tuple[dict, bytes]]] = {}
        with self.lock:
            for path, headers, body in self.posts:
                kept.setdefault(path, []).append((headers, body))
        return kept
