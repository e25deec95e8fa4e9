#!/usr/bin/env python3
"""Resident memory of `kuroneko serve` before and after three hostile upstream answers: a gzip body of
about 1 MB that inflates to 1 GiB. Prints each lookup's status and reason, and VmRSS before and after.

    swift build -c release && python3 bench/hostile-upstream.py [.build/release/kuroneko]
"""
import http.server, json, os, socket, subprocess, sys, threading, time, urllib.request, zlib

binary = sys.argv[1] if len(sys.argv) > 1 else ".build/release/kuroneko"

def gzip_bomb(size):
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = bytes(1 << 20)
    parts = [compressor.compress(chunk) for _ in range(size >> 20)]
    parts.append(compressor.flush())
    return b"".join(parts)

bomb = gzip_bomb(1 << 30)

class Bomb(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=UTF-8")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(bomb)))
        self.end_headers()
        try:
            self.wfile.write(bomb)
        except (BrokenPipeError, ConnectionResetError):
            pass
    def log_message(self, *args):
        pass

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Bomb)
threading.Thread(target=upstream.serve_forever, daemon=True).start()
port = free_port()
server = subprocess.Popen([binary, "serve", "--port", str(port), "--endpoint",
                           f"http://127.0.0.1:{upstream.server_address[1]}/cgi-bin/tneko"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def rss_kib():
    for line in open(f"/proc/{server.pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

try:
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    before = rss_kib()
    print(f"gzip body: {len(bomb)} bytes, inflating to {1 << 30} bytes")
    print(f"VmRSS before: {before} KiB")
    for number in ["327754459830", "100000000004", "100000079196"]:
        started = time.monotonic()
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/shipments/{number}?refresh=1", timeout=60)
            print(number, "answered 200")
        except urllib.error.HTTPError as error:
            problem = json.loads(error.read())
            print(f"{number}: {error.code} reason={problem.get('reason')} in {time.monotonic() - started:.2f} s")
        print(f"VmRSS after: {rss_kib()} KiB")
finally:
    server.terminate()
    server.wait()
