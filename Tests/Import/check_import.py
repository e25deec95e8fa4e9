"""`kuroneko import` as a Japanese shop runs it, on files made here with Python's codecs: a Shift_JIS (CP932)
export, UTF-8 with a BOM and UTF-16LE; the sheet comes back (read by Python's csv module) with every column
in order and the tracking columns after; `--watch` leaves every number on the watch list with no second
request for it; `--excel` and `--output-encoding cp932`; a file of 5,000 bad rows names 20 of them, each
with its row, and counts the rest.

Usage: check_import.py KURONEKO_BINARY
"""
import codecs
import csv
import io
import json
import os
import subprocess
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "TLS"))
from peers import FOLDER, numbers, start  # noqa: E402


def posts(simulator_url):
    with urllib.request.urlopen(simulator_url + "/admin/stats", timeout=10) as answer:
        return json.load(answer)["posts"]


def main():
    binary = sys.argv[1]
    simulator, simulator_url = start([binary, "simulate", "--port", "0"])
    endpoint = ["--endpoint", f"{simulator_url}/cgi-bin/tneko"]
    try:
        parcels = numbers(25)
        header = ["注文番号", "お客様名", "送り状番号", "メモ"]
        rows = [[f"A-{i:03d}", f"山田 {i}号", n if i % 3 else f'="{n}"', "髙橋様・①"] for i, n in enumerate(parcels)]
        rows.append(["A-999", "佐藤", "1.23457E+11", ""])
        text = "\r\n".join(",".join(row) for row in [header] + rows) + "\r\n"
        files = {
            "cp932": text.encode("cp932"), "utf-8-sig": codecs.BOM_UTF8 + text.encode("utf-8"),
            "utf-16le": codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
        }
        before = posts(simulator_url)
        for index, (name, data) in enumerate(files.items()):
            path = os.path.join(FOLDER, f"orders-{name}.csv")
            with open(path, "wb") as file:
                file.write(data)
            database = os.path.join(FOLDER, f"watch-{name}.sqlite")
            run = subprocess.run([binary, "import", path, "--column", "送り状番号", "--watch", "--label-column",
                                  "お客様名", "--db", database, *endpoint], capture_output=True, timeout=300)
            stderr = run.stderr.decode()
            assert run.returncode == 0, stderr
            sheet = list(csv.reader(io.StringIO(run.stdout.decode("utf-8"))))
            assert sheet[0][:4] == header and sheet[0][4] == "carrier" and sheet[0][-1] == "error", sheet[0]
            assert [row[:4] for row in sheet[1:]] == rows, f"{name}: the shop's columns were not kept"
            assert all(row[4] == "yamato" and row[-1] == "" for row in sheet[1:-1]), sheet[1:3]
            assert "row 27" in sheet[-1][-1] and "1.23457E+11" in sheet[-1][-1], sheet[-1]
            assert "26 rows: 25 numbers tracked" in stderr and "1 skipped, 25 watched" in stderr, stderr
            assert ("read as Shift_JIS (CP932)" in stderr) == (name == "cp932"), stderr
            # Ten numbers a request, and the watch list has every number with its status and label: the
            # refresh that would follow is not needed.
            now = posts(simulator_url)
            assert now - before == 3, f"{name}: {now - before} POSTs for 25 numbers"
            before = now
            listed = subprocess.run([binary, "list", "--all", "--json", "--db", database], capture_output=True,
                                    text=True, timeout=60)
            watches = json.loads(listed.stdout)
            assert sorted(w["number"] for w in watches) == sorted(parcels), listed.stdout[:300]
            assert all(w["shipment"] and w["checked_at"] for w in watches), "a watch without its first answer"
            assert {w["label"] for w in watches} == {f"山田 {i}号" for i in range(25)}
            assert posts(simulator_url) == before, "listing the watches asked Yamato again"

        excel = subprocess.run([binary, "import", os.path.join(FOLDER, "orders-cp932.csv"), "--column", "3",
                                "--excel", "--lang", "en", "-q", *endpoint], capture_output=True, timeout=300)
        assert excel.stdout.startswith(codecs.BOM_UTF8) and b"\r\n" in excel.stdout, excel.stdout[:40]
        back = subprocess.run([binary, "import", os.path.join(FOLDER, "orders-cp932.csv"), "--column", "3",
                               "--output-encoding", "cp932", "-q", *endpoint], capture_output=True, timeout=300)
        assert back.stdout.decode("cp932").splitlines()[1].startswith("A-000,山田 0号,"), back.stdout[:80]

        bad = os.path.join(FOLDER, "bad.csv")
        with open(bad, "w", encoding="utf-8") as file:
            file.write("no,name\n" + "".join(f"{i},{'x' * 5000}\n" for i in range(5000)))
        run = subprocess.run([binary, "import", bad, *endpoint], capture_output=True, text=True, timeout=120)
        lines = run.stderr.splitlines()
        named = [line for line in lines if line.startswith("kuroneko: row ")]
        assert len(named) == 20 and named[0].startswith("kuroneko: row 2: "), lines[:3]
        assert "4980 more rows skipped" in run.stderr, run.stderr[-300:]
        assert max(len(line) for line in lines) < 400, "a row's error line is unbounded"
        print(f"check_import: CP932, UTF-8 with BOM and UTF-16LE sheets came back whole with tracking columns, "
              f"watched in the same run (3 POSTs for 25 numbers, none after); 5,000 bad rows: 20 named")
    finally:
        simulator.terminate()
        simulator.wait(timeout=20)


if __name__ == "__main__":
    main()
