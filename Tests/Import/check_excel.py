"""The sheets Kuroneko writes, opened by a spreadsheet: LibreOffice Calc (headless, from Debian) reads each CSV as
Excel would and saves it as .xlsx, which openpyxl reads back. With --excel (excel=true) every tracking number and
every other long or zero-led number comes back whole, as text; without it Calc turns them into numbers (the
failure --excel exists for). A cell that would run as a formula comes back as the text it was, in every sheet.
Sheets: `kuroneko import --excel`, `kuroneko list --csv --excel`, and the API's download
(`/v1/watches?format=csv&excel=true&lang=ja`, what the web app's button asks for), whose record columns come
back whole and, saved from Calc as CSV and imported again, give each parcel the same record. Where LibreOffice is
not installed, says so and skips.

Usage: check_excel.py KURONEKO_BINARY
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "TLS"))
from peers import FOLDER, numbers, start  # noqa: E402


def opened(csv_bytes: bytes, name: str) -> list[list]:
    """The sheet as Calc reads it (comma-separated, UTF-8), each cell's value as saved in the .xlsx."""
    import openpyxl

    source = os.path.join(FOLDER, f"{name}.csv")
    with open(source, "wb") as file:
        file.write(csv_bytes)
    converted = subprocess.run(
        ["soffice", f"-env:UserInstallation=file://{FOLDER}/lo-profile", "--headless", "--infilter=CSV:44,34,76,1",
         "--convert-to", "xlsx", "--outdir", FOLDER, source], capture_output=True, text=True, timeout=120)
    target = os.path.join(FOLDER, f"{name}.xlsx")
    assert os.path.exists(target), converted.stderr + converted.stdout
    sheet = openpyxl.load_workbook(target, data_only=True).active
    return [list(row) for row in sheet.iter_rows(values_only=True)]


def main():
    binary = sys.argv[1]
    if not shutil.which("soffice"):
        print("check_excel: SKIPPED: LibreOffice (soffice) is not installed; sheets were NOT opened in a spreadsheet",
              file=sys.stderr)
        return
    simulator, simulator_url = start([binary, "simulate", "--port", "0"])
    endpoint = ["--endpoint", f"{simulator_url}/cgi-bin/tneko"]
    server = None
    try:
        parcels = numbers(4)
        # A shop's own columns: an order number led by zeros, a 13-digit member number, a formula.
        rows = [[f"000{index}", "1234567890123", number, "=1+1" if index == 0 else "@SUM(A1)"]
                for index, number in enumerate(parcels)]
        text = "注文番号,会員番号,送り状番号,メモ\r\n" + "".join(",".join(row) + "\r\n" for row in rows)
        sheet_path = os.path.join(FOLDER, "orders-excel.csv")
        with open(sheet_path, "w", encoding="utf-8") as file:
            file.write(text)
        database = os.path.join(FOLDER, "excel.sqlite")
        imported = subprocess.run([binary, "import", sheet_path, "--column", "送り状番号", "--excel", "--watch", "-q",
                                   "--db", database, *endpoint], capture_output=True, timeout=300)
        assert imported.returncode == 0, imported.stderr.decode()
        table = opened(imported.stdout, "import-excel")
        assert table[0][:4] == ["注文番号", "会員番号", "送り状番号", "メモ"] and table[0][4] == "運送会社", table[0]
        for row, source in zip(table[1:], rows):
            assert row[:3] == source[:3], f"the numbers did not come back whole: {row[:3]} for {source[:3]}"
            assert all(isinstance(cell, str) for cell in row[:3]), row[:3]
            assert row[3] == "'" + source[3], f"a formula came back as {row[3]!r}"
            assert row[4] == ("確認中" if row[5] == "not_found" else "ヤマト運輸"), row
        plain = subprocess.run([binary, "import", sheet_path, "--column", "送り状番号", "-q", *endpoint],
                               capture_output=True, timeout=300)
        lost = opened(plain.stdout, "import-plain")
        assert not isinstance(lost[1][2], str), "without --excel Calc reads the number as a number (the case --excel is for)"
        assert lost[1][3] == "'=1+1", lost[1]

        listed = subprocess.run([binary, "list", "--all", "--csv", "--excel", "--lang", "ja", "--db", database],
                                capture_output=True, timeout=60)
        assert listed.returncode == 0, listed.stderr.decode()
        table = opened(listed.stdout, "list-excel")
        assert table[0][0] == "送り状番号", table[0]
        assert sorted(row[0] for row in table[1:]) == sorted(parcels), [row[0] for row in table[1:]]

        server, base = start([binary, "serve", "--port", "0", "--db", database, *endpoint])
        with urllib.request.urlopen(base + "/v1/watches?format=csv&excel=true&lang=ja", timeout=30) as answer:
            downloaded = answer.read()
        table = opened(downloaded, "download-excel")
        assert table[0][0] == "送り状番号" and table[0][4] == "運送会社", table[0]
        assert sorted(row[0] for row in table[1:]) == sorted(parcels), [row[0] for row in table[1:]]
        # The parcel record's columns come back whole too: the order numbers led by zeros, the member numbers as
        # the kept column. Saved from the spreadsheet as CSV and imported again, each parcel has the same record.
        reference, member = table[0].index("注文番号"), table[0].index("会員番号")
        by_number = {row[0]: row for row in table[1:]}
        for index, number in enumerate(parcels):
            assert by_number[number][reference] == f"000{index}", by_number[number]
            assert by_number[number][member] == "1234567890123", by_number[number]
        saved = os.path.join(FOLDER, "saved-from-calc.csv")
        with open(saved, "w", encoding="utf-8", newline="") as file:
            csv.writer(file).writerows([["" if cell is None else str(cell) for cell in row] for row in table])
        again = os.path.join(FOLDER, "excel-again.sqlite")
        reread = subprocess.run([binary, "import", saved, "--watch", "-q", "--db", again, *endpoint],
                                capture_output=True, timeout=300)
        assert reread.returncode == 0, reread.stderr.decode()
        first = {w["number"]: w["record"] for w in json.loads(subprocess.run(
            [binary, "list", "--all", "--json", "--db", database], capture_output=True, text=True).stdout)}
        second = {w["number"]: w["record"] for w in json.loads(subprocess.run(
            [binary, "list", "--all", "--json", "--db", again], capture_output=True, text=True).stdout)}
        assert first == second, (first, second)
        assert first[parcels[0]] == {"reference": "0000", "fields": [{"name": "会員番号", "value": "1234567890123"}]}, first
        print(f"check_excel: the import, list --csv --excel and the download opened in LibreOffice Calc with "
              f"{len(parcels)} tracking numbers, zero-led and 13-digit numbers whole as text, formulas as text; the "
              f"download saved from Calc and imported again gives every parcel the same record")
    finally:
        for process in (server, simulator):
            if process:
                process.terminate()
                process.wait(timeout=20)


if __name__ == "__main__":
    main()
