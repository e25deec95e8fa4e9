"""A label tool's sheet uploaded from the page, in headless Chromium at 1366 px against `kuroneko serve --demo`:
20,000 rows in Shift_JIS (CP932) with a label tool's columns. The page shows the server's report (every row
watched, the columns it read), the table holds the 20,000, and each parcel keeps its row's reference,
recipient and label; a file that is not a sheet is refused in words, nothing added."""

import json
import os
import sys
import tempfile
import time
import unittest

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(__file__))
from server import BrowserTestCase, ROOT, Server, chromium, screenshot  # noqa: E402
from test_list_at_scale import wait  # noqa: E402
from test_webapp import serious_violations, snapshot  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))
ROWS = 20_000


def number(index):
    """12 digits with the modulo-7 check digit; the first digit spreads them over the demo's three carriers."""
    eleven = f"{'389'[index % 3]}{1_000_000_000 + index * 7_919:010d}"
    return eleven + str(int(eleven) % 7)


def label_tool_sheet(folder, rows=ROWS):
    header = ["お客様管理番号", "お届け先名", "お届け先電話番号", "出荷予定日", "品名", "個数", "伝票番号"]
    lines = [header] + [[f"A-{i:05d}", f"山田 {i}", f"090-{i // 10_000:04d}-{i % 10_000:04d}", "2026/12/02",
                         f"品物{i % 7}", "1", number(i)] for i in range(rows)]
    path = os.path.join(folder, "label-day.csv")
    with open(path, "wb") as file:
        file.write(("\r\n".join(",".join(row) for row in lines) + "\r\n").encode("cp932"))
    return path


class SheetImportTests(BrowserTestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        cls.folder = tempfile.mkdtemp(prefix="kuroneko-sheet-")
        cls.server = Server().start()
        cls.driver = chromium(width=1366, height=900)
        cls.driver.get(cls.server.url + "/")

    def upload(self, path):
        if not self.d.find_element(By.ID, "sheet-file").is_displayed():
            self.d.find_element(By.ID, "add-toggle").click()
        self.d.find_element(By.ID, "sheet-file").send_keys(path)

    def test_1_a_file_that_is_not_a_sheet_is_refused_in_words(self):
        wait(lambda: self.d.find_elements(By.ID, "sheet-file"), "no sheet field")
        path = os.path.join(self.folder, "photo.csv")
        with open(path, "wb") as file:
            file.write(bytes([0xFF, 0xD8, 0xFF, 0xE0]) + b"\x00" * 64 + b"\x82\xff")
        self.upload(path)
        said = wait(lambda: snapshot(self.d, "#sheet-report .error"), "the refusal was not shown")
        self.assertIn("photo.csv", said)
        self.assertIn("the sheet", said)
        self.assertEqual(json.loads(self.server.api("GET", "/v1/watches/summary")[1])["total"], 0)

    def test_2_twenty_thousand_rows_of_a_label_tool_come_in_with_their_report(self):
        path = label_tool_sheet(self.folder)
        began = time.monotonic()
        self.upload(path)
        summary = wait(lambda: snapshot(self.d, "#sheet-summary"), "no report of the import", timeout=600)
        took = time.monotonic() - began
        self.assertIn(f"{ROWS} rows with a number; {ROWS} added, 0 already on the list, 0 skipped", summary)
        columns = snapshot(self.d, "#sheet-report .hint")
        self.assertIn("number ← 伝票番号", columns)
        print(f"\n  {ROWS} rows imported from the page in {took:.1f} s", file=sys.stderr)
        self.assertEqual(json.loads(self.server.api("GET", "/v1/watches/summary")[1])["total"], ROWS)
        wait(lambda: snapshot(self.d, "#table table", "return e.getAttribute('aria-rowcount')") == str(ROWS + 1),
             "the table does not hold the imported rows")
        # Nothing but rows in the table's body: no stray "null" above the first row.
        stray = self.d.execute_script("return [...document.querySelector('#table tbody').childNodes]"
                                      ".filter((n) => n.nodeType !== 1).map((n) => n.textContent)")
        self.assertEqual(stray, [])
        watch = json.loads(self.server.api("GET", f"/v1/watches/{number(12_345)}")[1])
        self.assertEqual(watch["label"], "品物4")
        self.assertEqual(watch["record"]["reference"], "A-12345")
        self.assertEqual(watch["record"]["recipient"]["name"], "山田 12345")
        self.assertEqual(watch["record"]["recipient"]["telephone"], "090-0001-2345")
        self.assertEqual(serious_violations(self.d), [])
        screenshot(self, self.d, OUTPUT, "sheet-imported", 1366)

    def test_3_a_sheet_without_its_e_mail_column_is_steered_in_japanese(self):
        """The report in the page's language: the layout named, the missing e-mail column warned of, the columns
        shown under their Japanese names; choosing the e-mail column and importing again keeps every e-mail."""
        from selenium.webdriver.support.ui import Select
        Select(self.d.find_element(By.ID, "lang")).select_by_value("ja")
        try:
            rows = [["お問合せ送り状No", "出荷日時", "住所録コード", "お届け先郵便番号", "お届け先住所１", "お届け先住所２",
                     "お届け先名称１", "お届け先電話番号", "お客様管理ナンバー", "連絡先"]]
            rows += [[number(30_000 + i), "2026/12/06 10:00", "", "1360075", "東京都江東区新砂", f"2-2-{i}", f"佐藤 {i}",
                      "電話なし" if i == 2 else "03-1111-0000", f"SG-{i}", f"sato{i}@example.jp"] for i in range(3)]
            # A row whose number cannot be one: named in the report, in Japanese.
            rows += [["12345", "2026/12/06 10:00", "", "", "", "", "誰か", "", "SG-x", ""]]
            path = os.path.join(self.folder, "ehiden.csv")
            with open(path, "wb") as file:
                file.write(("\r\n".join(",".join(row) for row in rows) + "\r\n").encode("cp932"))
            self.upload(path)
            layout = wait(lambda: snapshot(self.d, "#sheet-layout"), "the layout was not named")
            self.assertEqual("e飛伝 出荷実績データ（10 列）として読み取りました。", layout)
            problems = snapshot(self.d, "#sheet-report .errors")
            self.assertIn("5 行目：「12345」は伝票番号として読めないため、読み飛ばしました。", problems)
            self.assertIn("4 行目：電話番号を読めないため、それ以外を登録しました。", problems)
            warning = snapshot(self.d, "#sheet-report .sheet-warning")
            self.assertIn("メールアドレスの列がないため", warning)
            self.assertIn("伝票番号 ← お問合せ送り状No", snapshot(self.d, "#sheet-columns"))
            self.d.find_element(By.CSS_SELECTOR, "#sheet-chooser summary").click()
            Select(self.d.find_element(By.ID, "sheet-column-email")).select_by_value("連絡先")
            self.d.find_element(By.ID, "sheet-again").click()
            wait(lambda: "メールアドレス ← 連絡先" in (snapshot(self.d, "#sheet-columns") or ""),
                 "the chosen column was not read")
            self.assertEqual(self.d.find_elements(By.CSS_SELECTOR, "#sheet-report .sheet-warning"), [])
            for i in range(3):
                watch = json.loads(self.server.api("GET", f"/v1/watches/{number(30_000 + i)}")[1])
                self.assertEqual(watch["record"]["recipient"]["email"], f"sato{i}@example.jp")
                self.assertEqual(watch["record"]["reference"], f"SG-{i}")
                self.assertEqual(watch["carrier"], "sagawa")
            report = snapshot(self.d, "#sheet-report")
            self.assertNotIn("null", report)
            self.assertEqual(serious_violations(self.d), [])
            screenshot(self, self.d, OUTPUT, "sheet-steered", 1366)
            # The parcel page gives the whole address, not the postcode alone.
            self.d.get(self.server.url + f"/parcel/{number(30_001)}")
            wait(lambda: "〒136-0075 東京都江東区新砂2-2-1" in (snapshot(self.d, "main") or ""),
                 lambda: f"the address is not on the parcel page: {snapshot(self.d, 'main')[:600]}")
            self.d.get(self.server.url + "/")
        finally:
            Select(self.d.find_element(By.ID, "lang")).select_by_value("en")


if __name__ == "__main__":
    unittest.main(verbosity=2)
