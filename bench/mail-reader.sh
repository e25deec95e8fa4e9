#!/bin/sh
# The shipping-mail reader's time per message (issue 37): an mbox of 1,000 messages made from the corpus
# (Tests/Fixtures/mail/*.eml, each copied with its own Message-ID, so every charset, encoding and shape is in the
# mix) read by `kuroneko intake --json` five times; the best run's wall time over 1,000 is the figure, with the
# peak resident memory. Usage: bench/mail-reader.sh   (KURONEKO_BINARY: default the release build)
set -eu
cd "$(dirname "$0")/.."
binary=${KURONEKO_BINARY:-.build/release/kuroneko}
work=$(mktemp -d /tmp/kuroneko-mail-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$work/mail.mbox" Tests/Fixtures/mail <<'PY'
import glob, os, sys
out, corpus = sys.argv[1], sys.argv[2]
mails = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(corpus, "*.eml")))]
with open(out, "wb") as f:
    for i in range(1000):
        mail = mails[i % len(mails)].replace(b"@corpus.kuroneko.test>", b".%d@corpus.kuroneko.test>" % i)
        lines = mail.replace(b"\r\n", b"\n").split(b"\n")
        lines = [b">" + l if l.lstrip(b">").startswith(b"From ") else l for l in lines]
        f.write(b"From MAILER-DAEMON Wed Dec  2 12:00:00 2026\n" + b"\n".join(lines) + b"\n\n")
PY
echo "mbox: $(wc -c < "$work/mail.mbox") bytes, 1000 messages; binary: $binary"
best=""
for run in 1 2 3 4 5; do
    /usr/bin/time -f "%e %M" -o "$work/time" "$binary" intake --json "$work/mail.mbox" > "$work/out" 2> "$work/err"
    read seconds kilobytes < "$work/time"
    echo "run $run: $seconds s, peak $kilobytes KiB, $(wc -l < "$work/out") parcels; $(cat "$work/err")"
    if [ -z "$best" ] || [ "$(echo "$seconds < $best" | bc)" = 1 ]; then best=$seconds; fi
done
echo "best: $best s for 1,000 messages (process start and the JSON output included) = $(printf "%.2f" "$best") ms per message"
