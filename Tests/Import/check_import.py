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
            # The tracking columns are named in the output's language (Japanese by default).
            assert sheet[0][:4] == header and sheet[0][4] == "運送会社" and sheet[0][-1] == "エラー", sheet[0]
            assert [row[:4] for row in sheet[1:]] == rows, f"{name}: the shop's columns were not kept"
            # Found at Yamato, or not yet registered anywhere asked: then its carrier is not known yet (確認中),
            # never written as Yamato's.
            assert all(row[-1] == "" and row[4] == ("確認中" if row[5] == "not_found" else "ヤマト運輸")
                       for row in sheet[1:-1]), sheet[1:3]
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

        # The table in terminal columns: full-width and long labels, Japanese and English, cut to COLUMNS.
        from wcwidth import wcswidth

        long_labels = ["配達完了（宅配ボックス）を待つとても長い名前の荷物", "A very long English label for a parcel " * 3,
                       "ｶﾀｶﾅ半角", "短い"]
        sheet = os.path.join(FOLDER, "labels.csv")
        with open(sheet, "w", encoding="utf-8") as file:
            file.write("no,label\n" + "".join(f"{n},{label}\n" for n, label in zip(numbers(4), long_labels)))
        database = os.path.join(FOLDER, "labels.sqlite")
        run = subprocess.run([binary, "import", sheet, "--watch", "--label-column", "label", "--db", database, "-q",
                              *endpoint], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        for lang in ("ja", "en"):
            for columns in (80, 120):
                table = subprocess.run([binary, "list", "--all", "--lang", lang, "--db", database],
                                       capture_output=True, text=True, env={**os.environ, "COLUMNS": str(columns)})
                lines = table.stdout.rstrip("\n").split("\n")
                assert len(lines) == 5, table.stdout
                assert all(wcswidth(line) <= columns for line in lines), [wcswidth(line) for line in lines]
                # Every column starts at the same terminal column in every row: two spaces, then the cell.
                slots = [[c for c in line for _ in range(max(1, wcswidth(c)))] for line in lines]
                starts = [i for i in range(2, len(slots[0])) if slots[0][i - 2:i] == [" ", " "] and slots[0][i] != " "]
                assert len(starts) == 5, (lang, columns, lines[0])
                for row in slots[1:]:
                    for at in starts:
                        assert row[at - 2:at] == [" ", " "] and row[at] != " ", (lang, columns, "".join(row), at)
                assert "…" in table.stdout, "the long labels were not cut"

        # list narrowed, and as CSV read back by the csv module.
        every = json.loads(subprocess.run([binary, "list", "--all", "--json", "--db", database], capture_output=True,
                                          text=True).stdout)
        exported = subprocess.run([binary, "list", "--all", "--csv", "--lang", "en", "--db", database],
                                  capture_output=True, text=True)
        table = list(csv.DictReader(io.StringIO(exported.stdout)))
        assert sorted(row["number"] for row in table) == sorted(w["number"] for w in every), exported.stdout[:200]
        assert {row["label"] for row in table} == {label.strip() for label in long_labels}, [row["label"] for row in table]
        codes = {w["shipment"]["status"]["code"] for w in every}
        for code in codes:
            narrowed = subprocess.run([binary, "list", "--status", code, "--json", "--db", database],
                                      capture_output=True, text=True)
            assert {w["shipment"]["status"]["code"] for w in json.loads(narrowed.stdout)} == {code}, narrowed.stdout
        found = subprocess.run([binary, "list", "--all", "--search", "ｶﾀｶﾅ", "--json", "--db", database],
                               capture_output=True, text=True)
        assert [w["label"] for w in json.loads(found.stdout)] == ["ｶﾀｶﾅ半角"], found.stdout
        refused = subprocess.run([binary, "list", "--status", "lost", "--db", database], capture_output=True, text=True)
        assert refused.returncode == 2 and "neither a status code" in refused.stderr, refused.stderr

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
              f"watched in the same run (3 POSTs for 25 numbers, none after); 5,000 bad rows: 20 named; "
              f"the table lines up in terminal columns (wcwidth) at 80 and 120 in ja and en")
    finally:
        simulator.terminate()
        simulator.wait(timeout=20)


if __name__ == "__main__":
    main()
