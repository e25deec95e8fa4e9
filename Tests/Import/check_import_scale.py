"""A label tool's day: a 20,000-row Shift_JIS (CP932) sheet of Yamato, Sagawa and Japan Post numbers, exported
with its columns the day the labels were printed, read by `kuroneko import --watch` against `kuroneko simulate`
standing still at that morning (a quarter of the numbers not yet registered anywhere). Checked: the columns are
recognised by their headers and said; every parcel keeps its reference, recipient, telephone, ship date and the
other column; a number no carrier knows yet is watched with its carrier unknown, never as Yamato's (in the
list and in the CSV); once the simulator's clock passes the registrations, a refresh finds each one at its own
carrier.

Usage: check_import_scale.py KURONEKO_BINARY
"""
import csv
import io
import json
import os
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "TLS"))
from peers import FOLDER, start  # noqa: E402

ROWS = 20_000
START = "2026-12-02T08:00:00+09:00"
OWNERS = {"3": "yamato", "8": "sagawa", "9": "japanpost"}


def number(index):
    """12 digits with the modulo-7 check digit that all three carriers' forms accept; the first digit says which
    carrier the simulator gives it to (3 Yamato, 8 Sagawa, 9 Japan Post)."""
    first = "389"[index % 3]
    eleven = f"{first}{1_000_000_000 + index * 7_919:010d}"
    return eleven + str(int(eleven) % 7)


def watches(binary, database):
    listed = subprocess.run([binary, "list", "--all", "--json", "--db", database], capture_output=True, text=True,
                            timeout=600)
    assert listed.returncode == 0, listed.stderr[-500:]
    return json.loads(listed.stdout)


def main():
    binary = sys.argv[1]
    simulator, simulator_url = start([binary, "simulate", "--port", "0", "--speed", "0", "--start", START])
    endpoint = ["--endpoint", f"yamato={simulator_url}/cgi-bin/tneko,sagawa={simulator_url},japanpost={simulator_url}",
                "--min-interval", "0"]
    database = os.path.join(FOLDER, "label-day.sqlite")
    try:
        header = ["お客様管理番号", "お届け先名", "お届け先電話番号", "出荷予定日", "品名", "個数", "伝票番号"]
        numbers = [number(index) for index in range(ROWS)]
        rows = [[f"A-{index:05d}", f"山田 {index}", f"090-{index // 10_000:04d}-{index % 10_000:04d}", "2026/12/02",
                 f"品物{index % 7}", "1", numbers[index]] for index in range(ROWS)]
        sheet = os.path.join(FOLDER, "label-day.csv")
        with open(sheet, "wb") as file:
            file.write(("\r\n".join(",".join(row) for row in [header] + rows) + "\r\n").encode("cp932"))
        began = time.monotonic()
        run = subprocess.run([binary, "import", sheet, "--watch", "--db", database, *endpoint], capture_output=True,
                             timeout=1_200)
        imported = time.monotonic() - began
        stderr = run.stderr.decode()
        assert run.returncode == 0, stderr[-2_000:]
        assert ("columns: number ← 伝票番号, label ← 品名, reference ← お客様管理番号, name ← お届け先名, "
                "telephone ← お届け先電話番号, shipped_on ← 出荷予定日; kept as they came: 個数") in stderr, stderr[:600]
        assert f"{ROWS:,} rows: {ROWS:,} numbers tracked" in stderr and f"{ROWS:,} watched" in stderr, stderr[-400:]

        listed = watches(binary, database)
        assert len(listed) == ROWS, len(listed)
        by_number = {watch["number"]: watch for watch in listed}
        unknown = {"3": 0, "8": 0, "9": 0}
        for index, digits in enumerate(numbers):
            watch = by_number[digits]
            record = watch["record"]
            assert record["reference"] == f"A-{index:05d}", record
            assert record["recipient"] == {"name": f"山田 {index}",
                                           "telephone": f"090-{index // 10_000:04d}-{index % 10_000:04d}"}, record
            assert record["shipped_on"] == "2026-12-02" and record["fields"] == [{"name": "個数", "value": "1"}], record
            assert watch["label"] == f"品物{index % 7}", watch["label"]
            owner = OWNERS[digits[0]]
            # Found at its own carrier, or not known yet: never filed at another (Yamato, asked first).
            assert watch["carrier"] in (owner, None), (digits, watch["carrier"])
            if watch["carrier"] is None:
                unknown[digits[0]] += 1
        assert all(count > 0 for count in unknown.values()), unknown

        exported = subprocess.run([binary, "list", "--all", "--csv", "--lang", "en", "--db", database],
                                  capture_output=True, text=True, timeout=600)
        table = list(csv.DictReader(io.StringIO(exported.stdout)))
        assert len(table) == ROWS
        for row in table:
            if by_number[row["number"]]["carrier"] is None:
                assert row["carrier"] == "unknown" and row["status"].startswith("carrier not known yet"), row
            assert row["reference"] and row["recipient_name"] and row["shipped_on"] == "2026-12-02", row

        # The labels are handed in: past every registration, a refresh finds each number at its own carrier.
        later = "2026-12-02T20:30:00+09:00"
        request = urllib.request.Request(simulator_url + "/admin/clock", method="PUT",
                                         data=json.dumps({"now": later}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 200
        began = time.monotonic()
        refreshed = subprocess.run([binary, "refresh", "-q", "--db", database, *endpoint], capture_output=True,
                                   text=True, timeout=1_200)
        refresh_time = time.monotonic() - began
        assert refreshed.returncode == 0, refreshed.stderr[-1_000:]
        found = watches(binary, database)
        wrong = [(w["number"], w["carrier"]) for w in found if w["carrier"] != OWNERS[w["number"][0]]]
        assert not wrong, wrong[:5]
        print(f"check_import_scale: {ROWS:,} CP932 rows imported and watched in {imported:.0f} s with their "
              f"records; not registered yet: {unknown['3']:,} Yamato, {unknown['8']:,} Sagawa, {unknown['9']:,} "
              f"Japan Post numbers, each watched as unknown; after the clock passed their registration a refresh "
              f"({refresh_time:.0f} s) found every one at its own carrier")
    finally:
        simulator.terminate()
        simulator.wait(timeout=30)


if __name__ == "__main__":
    main()
