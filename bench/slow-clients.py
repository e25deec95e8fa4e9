"""Slow clients against `kuroneko serve --demo` (run by hand; bench/slow-clients.sh starts the server).

Opens slow connections that send part of a request line and then one byte every 2 s, from one loopback
address or from 16, and meanwhile times a normal client on another address: 20 GETs of /healthz, one
connection each. Prints, per scenario, how many slow connections were opened, how many the server still
held after 1 s (the rest it closed at once), the normal client's slowest answer, and how many slow ones
were still open 12 s later (the receive deadline is 10 s).

    python3 bench/slow-clients.py PORT
"""
import resource
import socket
import sys
import time

port = int(sys.argv[1])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def open_slow(source, count):
    held = []
    for _ in range(count):
        s = socket.socket()
        s.bind((source, 0))
        s.setblocking(False)
        try:
            s.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        held.append(s)
    time.sleep(0.5)
    for s in held:
        try:
            s.send(b"GET /healthz HTTP/1.1\r\nHo")
        except OSError:
            pass
    return held


def alive(sockets):
    count = 0
    for s in sockets:
        try:
            data = s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            if data:
                count += 1
        except BlockingIOError:
            count += 1
        except OSError:
            pass
    return count


def trickle(sockets):
    for s in sockets:
        try:
            s.send(b"s")
        except OSError:
            pass


def normal_client(source):
    slowest = 0.0
    failures = 0
    for _ in range(20):
        started = time.time()
        try:
            c = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
            c.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = c.recv(100)
            c.close()
            if not answer.startswith(b"HTTP/1.1 200"):
                failures += 1
        except OSError:
            failures += 1
        slowest = max(slowest, time.time() - started)
    return slowest, failures


def scenario(name, sources, per_source):
    slow = []
    for source in sources:
        slow += open_slow(source, per_source)
    time.sleep(1)
    held = alive(slow)
    trickle(slow)
    slowest, failures = normal_client("127.0.0.200")
    for _ in range(6):
        time.sleep(2)
        trickle(slow)
    left = alive(slow)
    print("%s: %d slow connections opened, %d held by the server after 1 s; normal client: slowest of 20 "
          "answers %.3f s, %d failed; slow connections still open 12 s later (trickling every 2 s): %d"
          % (name, len(slow), held, slowest, failures, left))
    for s in slow:
        s.close()
    time.sleep(1)


scenario("one address", ["127.0.0.1"], 3000)
scenario("16 addresses", ["127.0.0.%d" % (2 + index) for index in range(16)], 300)
