"""A label tool's sheet imported through the API, as the page's "import a sheet" sends it: ROWS rows (20,000 by
default) in Shift_JIS with a label tool's columns (the numbers spread over three carriers), POSTed to
`/v1/watches/import` of `kuroneko serve` (its poller idle, its carriers unreachable: only the import is timed).
Prints the time from the request to the report, and the report.

Usage: python3 bench/sheet-upload.py KURONEKO_BINARY [ROWS]
"""
import json
import os
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "WebApp"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "TLS"))
from peers import start  # noqa: E402
from test_sheet_import import label_tool_sheet  # noqa: E402


def main():
    binary = sys.argv[1]
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    folder = tempfile.mkdtemp(prefix="kuroneko-sheet-")
    with open(label_tool_sheet(folder, rows), "rb") as file:
        sheet = file.read()
    server, base = start([binary, "serve", "--port", "0", "--db", os.path.join(folder, "list.sqlite"), "--endpoint",
                          "http://127.0.0.1:9/cgi-bin/tneko", "--poll-speed", "0.001"])
    try:
        request = urllib.request.Request(base + "/v1/watches/import", data=sheet, method="POST",
                                         headers={"Content-Type": "text/csv"})
        began = time.monotonic()
        with urllib.request.urlopen(request, timeout=1_200) as answer:
            report = json.load(answer)
        took = time.monotonic() - began
        print(f"{rows:,} rows ({len(sheet) / 1e6:.1f} MB, CP932) imported in {took:.1f} s "
              f"({rows / took:,.0f} rows a second): {json.dumps(report, ensure_ascii=False)}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
