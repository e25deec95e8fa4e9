"""Channels that reach a person, through local receivers: one change on a watched parcel is sent to an ntfy
topic, a Slack and a Discord incoming webhook (each body and header checked against the shape the service
documents) and an e-mail address. E-mail goes through local SMTP receivers (`aiosmtpd`):

- one that requires STARTTLS and AUTH, with a certificate from an authority made here: `serve --smtp-url
  --ca-file --smtp-credentials` sends a change found on a watched parcel as an e-mail (read back by Python's
  `email`: the Japanese subject, a text and an HTML part, the parcel's link), the delivery recorded, and the
  password in no line the server wrote;
- one that offers no STARTTLS: `notify-test` refuses to send in the clear by default, naming STARTTLS, and
  sends with `--smtp-starttls optional`.

Usage: check_channels.py KURONEKO_BINARY
"""
import email
import email.header
import email.policy
import json
import warnings
import os
import socket
import ssl
import subprocess
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography.hazmat.primitives import serialization

sys.path.insert(0, os.path.dirname(__file__))
from peers import FOLDER, Lines, Receiver, api, authority, checked, in_transit, leaf, move_simulator_clock, start, write  # noqa: E402

warnings.filterwarnings("ignore", message="Session.login_data")  # aiosmtpd warns of its own field
USER, PASSWORD = "parcels", "s3cret-Passw0rd"


class Inbox:
    """What an SMTP receiver was handed: envelopes and messages, and whether the session was over TLS."""

    def __init__(self):
        self.messages = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.messages.append({"from": envelope.mail_from, "to": envelope.rcpt_tos, "content": envelope.content,
                                  "tls": session.ssl is not None, "user": session.auth_data if session.authenticated else None})
        return "250 OK"


def authenticate(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login == USER.encode() \
        and auth_data.password == PASSWORD.encode()
    return AuthResult(success=ok, handled=False, auth_data=USER if ok else None)


def check_hook_shapes(posts, number, label):
    """ntfy: the text body, Title (RFC 2047), Priority 1-5, Tags, Click; Slack: text and a mrkdwn section block;
    Discord: content (at most 2,000), one embed with title (256), description (4,096), colour and url, and no
    mention allowed (a label cannot ping @everyone)."""
    headers, body = posts["/ntfy/parcels"][0]
    title = str(email.header.make_header(email.header.decode_header(headers["Title"])))
    assert label in title, title
    assert headers["Priority"] in {"1", "2", "3", "4", "5"} and headers["Tags"], headers
    assert headers["Click"].startswith("https://"), headers
    assert body.decode("utf-8"), body
    slack = json.loads(posts["/slack/hook"][0][1])
    assert set(slack) == {"text", "blocks"} and label in slack["text"], slack
    block = slack["blocks"][0]
    assert block["type"] == "section" and block["text"]["type"] == "mrkdwn", block
    assert f"https://parcels.example.jp/parcel/{number}" in block["text"]["text"], block
    discord = json.loads(posts["/discord/hook"][0][1])
    assert set(discord) == {"content", "embeds", "allowed_mentions"} and len(discord["content"]) <= 2000, discord
    assert discord["allowed_mentions"] == {"parse": []}, discord
    embed = discord["embeds"][0]
    assert len(embed["title"]) <= 256 and len(embed["description"]) <= 4096 and isinstance(embed["color"], int), embed
    assert embed["url"] == f"https://parcels.example.jp/parcel/{number}", embed


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    binary = sys.argv[1]
    trusted = authority("Kuroneko mail test authority")
    ca_file = write("mail-authority.pem", trusted[1].public_bytes(serialization.Encoding.PEM))
    chain, secret = leaf(trusted, "localhost", "smtp")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(chain, secret)

    secure_inbox, plain_inbox = Inbox(), Inbox()
    secure = Controller(secure_inbox, hostname="127.0.0.1", port=free_port(), tls_context=context,
                        require_starttls=True, authenticator=authenticate, auth_required=True)
    plain = Controller(plain_inbox, hostname="127.0.0.1", port=free_port())
    secure.start()
    plain.start()
    credentials = write("smtp-credentials", f"{USER}:{PASSWORD}\n".encode())
    hooks = Receiver()  # ntfy, Slack and Discord, told apart by path
    simulator, simulator_url = start([binary, "simulate", "--port", "0"])
    processes = [simulator]
    try:
        endpoint = f"{simulator_url}/cgi-bin/tneko"
        number = in_transit(binary, ["--endpoint", endpoint])
        database = os.path.join(FOLDER, "mail.sqlite")
        lines = Lines()
        server, base = start([binary, "serve", "--port", "0", "--db", database, "--endpoint", endpoint,
                              "--public-url", "https://parcels.example.jp", "--ca-file", ca_file,
                              "--smtp-url", f"smtp://localhost:{secure.port}", "--smtp-from", "kuroneko@example.jp",
                              "--smtp-credentials", credentials, "--allow-private-webhooks"], lines=lines)
        processes.append(server)
        status, channel = api(base, "POST", "/v1/channels", {"kind": "email", "address": "ichiro@example.jp"})
        assert status == 201 and channel["url"] == "ichiro@example.jp", channel
        status, refusal = api(base, "POST", "/v1/channels", {"kind": "email", "address": "two@@example.jp"})
        assert status == 400 and "address" in refusal["detail"], refusal
        for kind, path in [("ntfy", "/ntfy/parcels"), ("slack", "/slack/hook"), ("discord", "/discord/hook")]:
            status, added = api(base, "POST", "/v1/channels", {"kind": kind, "url": hooks.origin + path})
            assert status == 201, added
        status, _ = api(base, "POST", "/v1/watches", {"number": number, "label": "冬のコート"})
        assert status == 201
        checked(base, number)
        move_simulator_clock(simulator_url, 3)
        checked(base, number)

        # Each attempt's line is written after its record (and after the receiver answered).
        lines.wait_for(rf"^channel id={channel['id']} kind=email .*result=delivered")
        records = api(base, "GET", f"/v1/channels/{channel['id']}/deliveries")[1]["deliveries"]
        assert any(r["state"] == "delivered" for r in records), records
        lines.wait_for(r"^channel id=\d+ kind=(ntfy|slack|discord) .*result=delivered", count=3)
        posts = hooks.by_path()
        assert sorted(posts) == ["/discord/hook", "/ntfy/parcels", "/slack/hook"], sorted(posts)
        check_hook_shapes(posts, number, "冬のコート")
        message = secure_inbox.messages[0]
        assert message["tls"] and message["user"] == USER, message
        assert message["from"] == "kuroneko@example.jp" and message["to"] == ["ichiro@example.jp"], message
        parsed = email.message_from_bytes(message["content"], policy=email.policy.default)
        assert "冬のコート" in parsed["Subject"], parsed["Subject"]
        assert parsed.get_content_type() == "multipart/alternative", parsed.get_content_type()
        text = parsed.get_body(("plain",)).get_content()
        html = parsed.get_body(("html",)).get_content()
        assert f"https://parcels.example.jp/parcel/{number}" in text, text
        assert f'href="https://parcels.example.jp/parcel/{number}"' in html, html
        assert PASSWORD not in "\n".join(lines), "the SMTP password was written to the server's output"
        assert any("smtp=smtp://localhost" in line and "smtp_auth=true" in line for line in lines), list(lines)[:3]

        # notify-test: STARTTLS required by default, refused by a server that does not offer it.
        plain_url = ["--smtp-url", f"smtp://127.0.0.1:{plain.port}", "--smtp-from", "kuroneko@example.jp"]
        refused = subprocess.run([binary, "notify-test", str(channel["id"]), "--db", database, *plain_url],
                                 capture_output=True, text=True, timeout=60)
        assert refused.returncode == 1 and "STARTTLS" in refused.stderr, (refused.returncode, refused.stderr)
        assert not plain_inbox.messages
        sent = subprocess.run([binary, "notify-test", str(channel["id"]), "--db", database, *plain_url,
                               "--smtp-starttls", "optional"], capture_output=True, text=True, timeout=60)
        assert sent.returncode == 0 and "SMTP 250" in sent.stdout, (sent.returncode, sent.stdout, sent.stderr)
        assert len(plain_inbox.messages) == 1 and not plain_inbox.messages[0]["tls"], plain_inbox.messages
        print(f"check_channels: ntfy, Slack and Discord bodies in their documented shapes; a change e-mailed over STARTTLS with AUTH ({len(message['content'])} bytes); "
              f"plain SMTP refused by default (“{refused.stderr.strip()}”) and sent when optional")
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=20)
        secure.stop()
        plain.stop()
        hooks.http.shutdown()


if __name__ == "__main__":
    main()
