"""`kuroneko serve --tls-cert --tls-key`, against an authority this check makes: the API answers over https
with TLS 1.3 (and 1.2 when a client asks for no more); a new certificate written over the files is served on
the next connection after SIGHUP, and within the periodic look at the files without one, while a connection
opened before goes on; a broken pair (a key that is not PEM, a key that is not the certificate's) is refused
in one line and the pair before keeps serving; the plain-http port redirects to https with the path and query.

Usage: check_https.py path/to/kuroneko"""
import http.client
import os
import shutil
import signal
import socket
import ssl
import sys
import time
import urllib.error
import urllib.request

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from peers import FOLDER, Lines, authority, leaf, start, write


def serial_served(port: int, context: ssl.SSLContext) -> tuple[int, str]:
    """The serial number of the certificate a new connection is given, and the TLS version agreed."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            der = tls.getpeercert(binary_form=True)
            return x509.load_der_x509_certificate(der).serial_number, tls.version()


def serial(path: str) -> int:
    with open(path, "rb") as file:
        return x509.load_pem_x509_certificate(file.read()).serial_number


def install(source: tuple[str, str], target: tuple[str, str]) -> None:
    """Writes a pair over the served files the way a renewal tool does: a new file renamed into place."""
    for made, served in zip(source, target):
        shutil.copyfile(made, served + ".new")
        os.replace(served + ".new", served)


def main() -> None:
    binary = sys.argv[1]
    trusted = authority("Kuroneko HTTPS check authority")
    ca_file = write("https-ca.pem", trusted[1].public_bytes(Encoding.PEM))
    first = leaf(trusted, "localhost", "first")
    served = (os.path.join(FOLDER, "served.pem"), os.path.join(FOLDER, "served.key"))
    install(first, served)
    lines = Lines()
    server, base = start([binary, "serve", "--demo", "--port", "0", "--tls-cert", served[0], "--tls-key", served[1],
                          "--http-redirect-port", "0"], lines=lines)
    try:
        assert base.startswith("https://127.0.0.1:"), base
        port = int(base.rsplit(":", 1)[1])
        context = ssl.create_default_context(cafile=ca_file)
        number, version = serial_served(port, context)
        assert number == serial(first[0]) and version == "TLSv1.3", (number, version)
        legacy = ssl.create_default_context(cafile=ca_file)
        legacy.maximum_version = ssl.TLSVersion.TLSv1_2
        assert serial_served(port, legacy)[1] == "TLSv1.2"
        with urllib.request.urlopen(base + "/healthz", context=context, timeout=10) as answer:
            assert answer.status == 200

        # A connection opened before the swap is answered on after it.
        kept = http.client.HTTPSConnection("localhost", port, context=context, timeout=10)
        kept.request("GET", "/healthz")
        assert kept.getresponse().read() is not None

        # Each wait is for a line written after its step (the periodic look may also notice a change first).
        second = leaf(trusted, "localhost", "second")
        mark = lines.mark()
        install(second, served)
        server.send_signal(signal.SIGHUP)
        lines.wait_for(r"tls: serving .*served\.pem", since=mark)
        assert serial_served(port, context)[0] == serial(second[0]), "the renewed certificate is not served"
        kept.request("GET", "/healthz")
        assert kept.getresponse().status == 200, "the connection from before the swap was dropped"
        kept.close()

        # Broken pairs: a key that is not PEM, then a key that is not the certificate's.
        mark = lines.mark()
        with open(served[1], "wb") as file:
            file.write(b"not a key\n")
        server.send_signal(signal.SIGHUP)
        refused = lines.wait_for(r"not a PEM private key", since=mark)[0].strip()
        assert "not a PEM private key" in refused, refused
        third = leaf(trusted, "localhost", "third")
        mark = lines.mark()
        install((third[0], second[1]), served)
        server.send_signal(signal.SIGHUP)
        mismatch = lines.wait_for(r"key is not the certificate's", since=mark)[0].strip()
        assert "the key is not the certificate's" in mismatch, mismatch
        assert serial_served(port, context)[0] == serial(second[0]), "a broken pair replaced the good one"
        with urllib.request.urlopen(base + "/healthz", context=context, timeout=10) as answer:
            assert answer.status == 200

        # A renewal written without SIGHUP is found by the periodic look at the files.
        fourth = leaf(trusted, "localhost", "fourth")
        started = time.monotonic()
        mark = lines.mark()
        install(fourth, served)
        lines.wait_for(r"tls: serving .*served\.pem", since=mark)
        picked = time.monotonic() - started
        assert serial_served(port, context)[0] == serial(fourth[0])

        # The plain port only redirects.
        redirect_line = lines.wait_for(r"redirecting http://127\.0\.0\.1:\d+ to https://")[0]
        plain = int(redirect_line.split("http://127.0.0.1:")[1].split(" ")[0])

        class NoFollow(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *arguments):
                return None

        opener = urllib.request.build_opener(NoFollow)
        try:
            opener.open(f"http://127.0.0.1:{plain}/parcel/327754459830?lang=ja", timeout=10)
            raise AssertionError("the plain port answered without redirecting")
        except urllib.error.HTTPError as error:
            assert error.code == 308, error.code
            location = error.headers["Location"]
            assert location == f"https://127.0.0.1:{port}/parcel/327754459830?lang=ja", location
        # The request's Host never names the redirect's target.
        hostile = urllib.request.Request(f"http://127.0.0.1:{plain}/x", headers={"Host": "evil.example"})
        try:
            opener.open(hostile, timeout=10)
            raise AssertionError("the plain port answered without redirecting")
        except urllib.error.HTTPError as error:
            assert error.headers["Location"] == f"https://127.0.0.1:{port}/x", error.headers["Location"]
        print(f"check_https: TLS 1.3 and 1.2 served; renewed on SIGHUP and, without it, after {picked:.1f} s; "
              f"broken pairs refused (“{refused.split(': ', 1)[1]}”, “{mismatch.split(': ', 1)[1]}”); "
              f"http://…:{plain} redirects 308 to {location}")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
