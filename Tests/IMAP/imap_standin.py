#!/usr/bin/env python3
"""A stand-in IMAP server over TLS for the mailbox tests, answering the way real servers sometimes do and
libcurl could not bear: 300 untagged FETCH FLAGS lines in one write after SELECT, and (for the middle one of
three messages) a literal announced and never finished, the connection then left silent. Usage:
imap_standin.py DIR — writes DIR/ca.pem, DIR/port and DIR/password, then serves until killed."""
import os
import socket
import ssl
import subprocess
import sys
import threading

folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)


def run(*command):
    subprocess.run(command, check=True, capture_output=True, cwd=folder)


run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
    "-subj", "/CN=Kuroneko stand-in CA")
run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
with open(os.path.join(folder, "san.ext"), "w") as file:
    file.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
    "server.pem", "-days", "2", "-extfile", "san.ext")


def mail(uid: int, number: str) -> bytes:
    return (f"From: shop@example.com\r\nSubject: shipped {uid}\r\nMessage-ID: <standin-{uid}@kuroneko.test>\r\n"
            f"Content-Type: text/plain; charset=UTF-8\r\n\r\nヤマト運輸 お問い合わせ伝票番号：{number}\r\n").encode()


def valid(first_eleven: str) -> str:
    return first_eleven + str(int(first_eleven) % 7)


MESSAGES = {1: mail(1, valid("47080120001")), 2: mail(2, valid("47080120002")), 3: mail(3, valid("47080120003"))}
POISONED = 2


def serve(connection: ssl.SSLSocket) -> None:
    reader = connection.makefile("rb")
    connection.sendall(b"* OK stand-in ready\r\n")
    while True:
        line = reader.readline()
        if not line:
            return
        tag, _, rest = line.decode().strip().partition(" ")
        word = rest.split(" ")[0].upper()
        if word == "LOGIN":
            connection.sendall(f"{tag} OK logged in\r\n".encode())
        elif word == "SELECT":
            flood = b"".join(b"* %d FETCH (FLAGS (\\Seen))\r\n" % (n % 3 + 1) for n in range(300))
            connection.sendall(b"* 3 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n* OK [UIDNEXT 4] ok\r\n" + flood
                               + f"{tag} OK [READ-WRITE] selected\r\n".encode())
        elif rest.upper().startswith("UID SEARCH"):
            connection.sendall(f"* SEARCH 1 2 3\r\n{tag} OK searched\r\n".encode())
        elif rest.upper().startswith("UID FETCH") and "RFC822.SIZE" in rest.upper():
            wanted = uids(rest.split(" ")[2])
            out = "".join(f"* {uid} FETCH (UID {uid} RFC822.SIZE {len(MESSAGES[uid])})\r\n" for uid in wanted if uid in MESSAGES)
            connection.sendall((out + f"{tag} OK fetched\r\n").encode())
        elif rest.upper().startswith("UID FETCH") and "BODY.PEEK[]" in rest.upper():
            for uid in uids(rest.split(" ")[2]):
                body = MESSAGES.get(uid)
                if body is None:
                    continue
                if uid == POISONED:
                    # The literal is announced, half sent, and never finished: the connection goes silent.
                    connection.sendall(f"* {uid} FETCH (UID {uid} BODY[] {{{len(body)}}}\r\n".encode() + body[:20])
                    threading.Event().wait()
                connection.sendall(f"* {uid} FETCH (UID {uid} BODY[] {{{len(body)}}}\r\n".encode() + body + b")\r\n")
            connection.sendall(f"{tag} OK fetched\r\n".encode())
        elif word == "LOGOUT":
            connection.sendall(f"* BYE\r\n{tag} OK bye\r\n".encode())
            return
        else:
            connection.sendall(f"{tag} OK\r\n".encode())


def uids(text: str) -> list:
    found = []
    for part in text.split(","):
        low, _, high = part.partition(":")
        found += range(int(low), int(high or low) + 1)
    return found


context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(os.path.join(folder, "server.pem"), os.path.join(folder, "server.key"))
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)
with open(os.path.join(folder, "password"), "w") as file:
    file.write("stand-in")
with open(os.path.join(folder, "port.new"), "w") as file:
    file.write(str(listener.getsockname()[1]))
os.replace(os.path.join(folder, "port.new"), os.path.join(folder, "port"))
while True:
    raw, _ = listener.accept()
    try:
        tls = context.wrap_socket(raw, server_side=True)
    except (ssl.SSLError, OSError):
        raw.close()
        continue
    threading.Thread(target=serve, args=(tls,), daemon=True).start()
