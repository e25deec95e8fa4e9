#!/usr/bin/env python3
"""Memory before identity (issue 61): 64 connections each send the head of a 16 MiB body to POST /v1/watches/import
and all of it but the last byte, first without credentials, then with a key; meanwhile /healthz is asked one
request after another. Prints the server's resident memory (VmRSS) before, at its peak in each phase and after
every connection has gone, the answers each phase got, and /healthz's p50, p99 and slowest.

Usage: bench/body-budget.py [BINARY]   (default .build/release/kuroneko)"""
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BINARY = sys.argv[1] if len(sys.argv) > 1 else ".build/release/kuroneko"
BODY = 16 * 1024 * 1024 - 1
CONNECTIONS = 64


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def start_server(folder):
    database = os.path.join(folder, "list.sqlite")
    made = subprocess.run([BINARY, "keys", "create", "--name", "shop", "--db", database], capture_output=True,
                          text=True, check=True)
    key = re.search(r"key shop: (\S+)", made.stdout).group(1)
    log = open(os.path.join(folder, "server.log"), "w+")
    server = subprocess.Popen([BINARY, "serve", "--db", database, "--port", "0", "--endpoint", "http://127.0.0.1:9",
                               "--receive-timeout", "0", "--connections-per-client", "1000"],
                              stdout=subprocess.DEVNULL, stderr=log)
    for _ in range(600):
        log.seek(0)
        found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", log.read())
        if found:
            return server, int(found.group(1)), key
        time.sleep(0.05)
    raise SystemExit("the server did not start")


def healthz(port, latencies, stop):
    while not stop.is_set():
        began = time.monotonic()
        with socket.create_connection(("127.0.0.1", port)) as connection:
            connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            while connection.recv(4096):
                pass
        latencies.append((time.monotonic() - began) * 1000)


def sender(port, head, answers):
    """Sends the head and the body but its last byte, then waits for an answer or the connection's end."""
    connection = socket.create_connection(("127.0.0.1", port))
    connection.settimeout(30)
    chunk = b"9" * 65536
    sent, cut = 0, False
    answer = b""
    try:
        connection.sendall(head)
        while sent < BODY - 1:
            piece = chunk[:min(len(chunk), BODY - 1 - sent)]
            connection.sendall(piece)
            sent += len(piece)
    except OSError:
        cut = True
    try:
        answer = connection.recv(200)
    except OSError:
        pass
    if answer.startswith(b"HTTP/"):
        status = answer.split(b" ")[1].decode()
    else:
        status = "closed unanswered" if cut else "held, all but the last byte sent"
    answers.append((status, connection))


def phase(name, port, pid, head):
    answers, peak, threads = [], [rss_mib(pid)], []
    latencies, stop = [], threading.Event()
    health = threading.Thread(target=healthz, args=(port, latencies, stop))
    health.start()
    for _ in range(CONNECTIONS):
        thread = threading.Thread(target=sender, args=(port, head, answers))
        thread.start()
        threads.append(thread)
    while any(thread.is_alive() for thread in threads):
        peak.append(rss_mib(pid))
        time.sleep(0.05)
    peak.append(rss_mib(pid))
    counts = {}
    for status, _ in answers:
        counts[status] = counts.get(status, 0) + 1
    for _, connection in answers:
        connection.close()
    stop.set()
    health.join()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"{name}: peak {max(peak):.0f} MiB; answers {dict(sorted(counts.items()))}; /healthz {len(latencies)} "
          f"requests, p50 {statistics.median(latencies):.1f} ms, p99 {p99:.1f} ms, slowest {latencies[-1]:.1f} ms")


def main():
    with tempfile.TemporaryDirectory(prefix="kuroneko-body-budget.") as folder:
        server, port, key = start_server(folder)
        try:
            time.sleep(1)
            pid = server.pid
            print(f"binary {BINARY}; {CONNECTIONS} connections of {BODY:,} bytes each")
            print(f"at start: {rss_mib(pid):.0f} MiB")
            base = (f"POST /v1/watches/import HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\n"
                    f"Content-Length: {BODY}\r\n")
            phase("without credentials", port, pid, (base + "\r\n").encode())
            time.sleep(2)
            print(f"after they went: {rss_mib(pid):.0f} MiB")
            phase("with a key", port, pid, (base + f"Authorization: Bearer {key}\r\n\r\n").encode())
            time.sleep(2)
            print(f"after they went: {rss_mib(pid):.0f} MiB")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
