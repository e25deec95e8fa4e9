"""TLS to every peer, against a certificate authority made here (`cryptography`):

- an upstream that offers only TLS 1.2 with AES128-GCM-SHA256 (RSA key exchange, as Yamato's server is
  reported to) in front of `kuroneko simulate` answers `kuroneko track --ca-file` and `serve --ca-file`;
  without the authority the same lookup is refused, naming the certificate problem;
- https deliveries from `serve --ca-file` to a receiver with a certificate from that authority succeed; one
  whose certificate is for another host name, and one from another authority, are refused, and the refusal is
  named in the channel's delivery record.

Usage: check_tls.py KURONEKO_BINARY
"""
import http.server
import os
import ssl
import subprocess
import sys
import threading
import urllib.request

from cryptography.hazmat.primitives import serialization

sys.path.insert(0, os.path.dirname(__file__))
from peers import FOLDER, Lines, api, authority, checked, in_transit, leaf, move_simulator_clock, start, write  # noqa: E402


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
        # A parcel still on its way (found over TLS), whose check three simulated days on finds a change.
        number = in_transit(binary, ["--endpoint", upstream, "--ca-file", ca_file])
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
        lines = Lines()
        server, base = start([binary, "serve", "--port", "0", "--db", database, "--endpoint", upstream,
                              "--ca-file", ca_file, "--allow-private-webhooks"], lines=lines)
        processes.append(server)
        channels = {}
        for name, receiver in [("good", good), ("wrong host", wrong_host), ("wrong authority", wrong_authority)]:
            status, channel = api(base, "POST", "/v1/channels",
                                  {"kind": "webhook", "url": f"https://localhost:{receiver.port}/hook", "lang": "en"})
            assert status == 201, channel
            channels[name] = channel["id"]
        status, _ = api(base, "POST", "/v1/watches", {"number": number})
        assert status == 201
        checked(base, number)
        move_simulator_clock(simulator_url, 3)
        checked(base, number)

        def records(name):
            return api(base, "GET", f"/v1/channels/{channels[name]}/deliveries")[1]["deliveries"]

        # Each attempt's line is written after its record: the records are read once, when the lines are there.
        lines.wait_for(rf"^channel id={channels['good']} .*result=delivered")
        assert any(r["state"] == "delivered" for r in records("good")), records("good")
        assert good.posts and good.posts[0][0] == "/hook", good.posts
        for name in ["wrong host", "wrong authority"]:
            lines.wait_for(rf"^channel id={channels[name]} .*status=- result=retry")
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
