#!/bin/sh
# The server's mailbox (issue 37): 1,000 shipping mails (the corpus's 13, each copied with its own Message-ID)
# appended to a Dovecot of scripts/test-imap, then `kuroneko serve --demo --mailbox …` started on an empty watch
# list with the default --mailbox-every (300 s); the time from its start until /metrics counts 1,000 messages
# read (200 a read, each read following the last at once while more wait), and the parcels watched.
# Usage: bench/mailbox.sh   (KURONEKO_BINARY: default the release build; needs dovecot-imapd)
set -eu
cd "$(dirname "$0")/.."
binary=${KURONEKO_BINARY:-.build/release/kuroneko}
work=$(mktemp -d /tmp/kuroneko-mailbox-bench.XXXXXX)
chmod 755 "$work"   # Dovecot's own user reads the test's files below it
port=18591
trap 'kill $server 2>/dev/null; scripts/test-imap stop "$work/imap"; rm -rf "$work"' EXIT
scripts/test-imap start "$work/imap"
python3 - "$work/imap" Tests/Fixtures/mail <<'PY'
import glob, imaplib, os, ssl, sys
imap, corpus = sys.argv[1], sys.argv[2]
port = int(open(os.path.join(imap, "port")).read())
connection = imaplib.IMAP4_SSL("127.0.0.1", port, ssl_context=ssl.create_default_context(cafile=os.path.join(imap, "ca.pem")))
connection.login("hanako", open(os.path.join(imap, "password")).read())
mails = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(corpus, "*.eml")))]
for i in range(1000):
    connection.append("INBOX", None, None, mails[i % len(mails)].replace(b"@corpus.kuroneko.test>", b".%d@corpus.kuroneko.test>" % i))
connection.logout()
PY
start=$(date +%s.%N)
"$binary" serve --demo --port $port --db "$work/watches.sqlite" --mailbox "imaps://hanako@127.0.0.1:$(cat "$work/imap/port")/INBOX" \
    --mailbox-password-file "$work/imap/password" --ca-file "$work/imap/ca.pem" >"$work/serve.log" 2>&1 &
server=$!
deadline=$(( $(date +%s) + 600 ))
while :; do
    kill -0 $server 2>/dev/null || { echo "the server stopped:"; tail -5 "$work/serve.log"; exit 1; }
    [ "$(date +%s)" -lt $deadline ] || { echo "1,000 messages were not read within 10 minutes"; tail -5 "$work/serve.log"; exit 1; }
    read=$(curl -s "http://127.0.0.1:$port/metrics" 2>/dev/null | awk '/^kuroneko_mailbox_messages_read_total /{print $2}')
    [ "${read:-0}" -ge 1000 ] && break
    sleep 0.05
done
end=$(date +%s.%N)
parcels=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^kuroneko_mailbox_parcels_watched_total /{print $2}')
echo "1,000 messages read in $(echo "$end - $start" | bc) s from the server's start (start-up included); $parcels parcels watched"
grep "mailbox" "$work/serve.log" | grep -v "^request" | head -8
