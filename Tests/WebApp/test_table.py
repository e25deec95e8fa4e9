"""The table, in headless Chromium at 1366 px against `kuroneko serve` and a simulator standing still, with 1,500
parcels: the server sorts and narrows the whole list and the table reads only the rows in sight; any row is a
scroll away (the last one included), a header sorts the whole list either way, the keyboard moves through it, a
selection holds across pages, the download is the list on screen (its filter and its order), a change reaches
the open table by itself, and axe finds nothing serious."""

import json
import os
import shutil
import sys
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(__file__))
from server import BrowserTestCase, ROOT, chromium, screenshot, still_simulator_and_server, tracking_numbers  # noqa: E402
from test_list_at_scale import wait  # noqa: E402
from test_webapp import serious_violations, snapshot  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))
COUNT = 1500

# The rows drawn at one moment: their place in the list and their number (a row still being read has none).
ROW_COUNT = "return e.getAttribute('aria-rowcount')"
ROWS = """return [...document.querySelectorAll('#table tbody tr[data-index]')].map(tr => ({
    index: Number(tr.dataset.index), number: tr.dataset.number || null}));"""


class TableTests(BrowserTestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        # A simulator standing still, asked without pauses: every first check is made at once, and after them
        # nothing moves on its own, so an order read from the API is the one the table should show.
        cls.simulator, cls.server = still_simulator_and_server()
        cls.numbers = tracking_numbers(COUNT, seed=4545)
        for start in range(0, COUNT, 1000):
            body = [{"number": n, "label": f"注文 {start + i:04d}"} for i, n in enumerate(cls.numbers[start:start + 1000])]
            status, answer = cls.server.api("POST", "/v1/watches", json.dumps(body).encode())
            assert status == 200, answer[:300]
        pending = lambda: json.loads(cls.server.api("GET", "/v1/watches/summary")[1])["by_family"]["pending"]
        wait(lambda: pending() == 0, lambda: f"{pending()} first checks never came", timeout=120)
        cls.driver = chromium(width=1366, height=900)
        cls.driver.get(cls.server.url + "/")
        cls.driver.execute_script("localStorage.setItem('kuroneko.view', 'auto'); localStorage.setItem('kuroneko.tableSort', 'number')")
        cls.driver.get(cls.server.url + "/")

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls.simulator.stop()

    def rows(self):
        return self.d.execute_script(ROWS)

    def api_order(self, sort, query="", limit=500, offset=0):
        status, body = self.server.api("GET", f"/v1/watches?sort={sort}&offset={offset}&limit={limit}{query}")
        self.assertEqual(status, 200, body[:300])
        answer = json.loads(body)
        return [w["number"] for w in answer["watches"]], answer["total"]

    def settled_rows(self, count=5):
        """The first rows drawn, once every one of them has been read."""
        return wait(lambda: (lambda rows: rows if len(rows) >= count and all(r["number"] for r in rows) else None)(self.rows()),
                    lambda: f"the table's rows were not read: {self.rows()[:5]}")

    def test_1_a_table_at_desktop_width_with_every_parcel_reachable(self):
        wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#table tbody tr[data-number]"), "no table at 1366 px")
        self.assertEqual(self.d.find_elements(By.ID, "cards"), [], "cards drawn beside the table")
        wait(lambda: snapshot(self.d, "#table table", ROW_COUNT) == str(COUNT + 1),
             lambda: f"the table says {snapshot(self.d, '#table table', ROW_COUNT)} rows")
        # In the order kept from the last visit (by number here).
        self.assertEqual([r["number"] for r in self.settled_rows(10)[:10]], sorted(self.numbers)[:10])
        # Only the rows in sight (and a few beyond) are in the document, not 1,500.
        self.assertLess(len(self.rows()), 60)
        # The last row is a scroll away, read from the server when it comes into sight.
        self.d.execute_script("const s = document.getElementById('table'); s.scrollTop = s.scrollHeight;")
        last = wait(lambda: [r for r in self.rows() if r["index"] == COUNT - 1 and r["number"]],
                    lambda: f"the last row never came: {self.rows()[-3:]}")[0]
        self.assertEqual(last["number"], self.api_order("number", offset=COUNT - 1, limit=1)[0][0])
        # And the middle.
        self.d.execute_script("const s = document.getElementById('table'); s.scrollTop = 750 * 40;")
        middle = wait(lambda: [r for r in self.rows() if r["index"] == 750 and r["number"]], "row 750 never came")[0]
        self.assertEqual(middle["number"], self.api_order("number", offset=750, limit=1)[0][0])
        screenshot(self, self.d, OUTPUT, "table-middle", 1366)

    def test_2_a_header_sorts_the_whole_list_either_way(self):
        self.d.execute_script("document.getElementById('table').scrollTop = 0")
        for press, sort, way in [(1, "expected", "ascending"), (2, "-expected", "descending"), (3, "number", "ascending")]:
            header = "number" if sort == "number" else "expected"
            self.d.find_element(By.CSS_SELECTOR, f"#table thead button[data-sort$='{header}']").click()
            wait(lambda: snapshot(self.d, f"#table thead button[data-sort$='{header}']",
                                  "return e.closest('th').getAttribute('aria-sort')") == way, f"{sort}: aria-sort is not {way}")
            wait(lambda: [r["number"] for r in self.settled_rows(10)[:10]] == self.api_order(sort, limit=10)[0],
                 lambda: f"{sort}: the table shows {[r['number'] for r in self.rows()[:10]]}, "
                         f"the API {self.api_order(sort, limit=10)[0]}")
        self.assertEqual(self.d.find_element(By.ID, "sort").get_attribute("value"), "number")
        self.d.find_element(By.CSS_SELECTOR, "#table thead button[data-sort$='status']").click()
        wait(lambda: self.d.execute_script("return localStorage.getItem('kuroneko.tableSort')") == "status", "the order was not kept")

    def test_3_the_keyboard_moves_selects_and_the_selection_holds_across_pages(self):
        self.d.find_element(By.CSS_SELECTOR, "#table thead button[data-sort$='number']").click()
        wait(lambda: [r["number"] for r in self.settled_rows(10)[:10]] == self.api_order("number", limit=10)[0],
             "not sorted by number")
        self.d.execute_script("document.querySelector('#table tbody tr[data-index=\"0\"]').focus()")
        focused = lambda: self.d.execute_script("const e = document.activeElement; return e && e.dataset ? Number(e.dataset.index) : null")
        self.d.switch_to.active_element.send_keys(Keys.SPACE)
        first = wait(lambda: snapshot(self.d, '#table tbody tr[data-index="0"]', "return e.dataset.number"), "no first row")
        for _ in range(3):
            self.d.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
        wait(lambda: focused() == 3, lambda: f"the focus is on row {focused()}, not 3")
        self.d.switch_to.active_element.send_keys(Keys.PAGE_DOWN)
        wait(lambda: focused() > 10, lambda: f"Page Down went to row {focused()}")
        self.d.switch_to.active_element.send_keys(Keys.END)
        wait(lambda: focused() == COUNT - 1, lambda: f"End went to row {focused()}")
        last = wait(lambda: snapshot(self.d, f'#table tbody tr[data-index="{COUNT - 1}"]', "return e.dataset.number"),
                    "the last row was not read")
        wait(lambda: focused() == COUNT - 1, "the focus left the last row")
        self.d.switch_to.active_element.send_keys(Keys.SPACE)
        # Two parcels fifteen pages apart are selected, and the bulk action counts both.
        wait(lambda: snapshot(self.d, "#remove-selected", "return e.hidden ? null : e.textContent") == "Remove selected (2)",
             lambda: f"the remove button says {snapshot(self.d, '#remove-selected', 'return e.textContent')}")
        self.d.switch_to.active_element.send_keys(Keys.HOME)
        wait(lambda: focused() == 0, "Home did not go back to the first row")
        wait(lambda: snapshot(self.d, f'#table tbody tr[data-number="{first}"] input.select', "return e.checked"),
             "the first row's selection was lost on the way")
        self.d.execute_script("window.confirm = () => true")
        self.d.find_element(By.ID, "remove-selected").click()
        wait(lambda: self.api_order("status", limit=1)[1] == COUNT - 2, "the two selected parcels were not removed")
        for number in (first, last):
            self.assertEqual(self.server.api("GET", f"/v1/watches/{number}")[0], 404)
        wait(lambda: snapshot(self.d, "#table table", ROW_COUNT) == str(COUNT - 1),
             "the table did not shrink by two")

    def test_4_the_download_is_the_list_on_screen(self):
        # Narrowed by a search and sorted by number, the other way.
        self.d.execute_script("""
            window.keptCSV = null;
            const make = URL.createObjectURL;
            URL.createObjectURL = (blob) => { blob.text().then((text) => { window.keptCSV = text; }); return make(blob); };""")
        search = self.d.find_element(By.ID, "search")
        search.send_keys("注文 01")
        query = "&q=" + "%E6%B3%A8%E6%96%87%2001"
        _, narrowed = self.api_order("status", query)
        wait(lambda: snapshot(self.d, "#table table", ROW_COUNT) == str(narrowed + 1),
             "the search did not narrow the table")
        for _ in range(2):  # by number, then the other way (or the other way at once, when by number already)
            if self.d.execute_script("return localStorage.getItem('kuroneko.tableSort')") != "-number":
                self.d.find_element(By.CSS_SELECTOR, "#table thead button[data-sort$='number']").click()
        wait(lambda: self.d.execute_script("return localStorage.getItem('kuroneko.tableSort')") == "-number", "not sorted")
        if not self.d.find_element(By.ID, "download").is_displayed():
            self.d.find_element(By.ID, "tools-toggle").click()
        self.d.find_element(By.ID, "download").click()
        csv = wait(lambda: self.d.execute_script("return window.keptCSV"), "nothing was downloaded")
        rows = [line.split(",")[0].strip('="') for line in csv.lstrip("\ufeff").splitlines()[1:]]
        expected, total = self.api_order("-number", query)
        self.assertEqual(total, narrowed)
        self.assertEqual(rows, expected)
        search.clear()
        search.send_keys(" ")

    def test_5_a_change_reaches_the_open_table(self):
        before, total = self.api_order("status", limit=1)
        wait(lambda: snapshot(self.d, "#table table", ROW_COUNT) == str(total + 1),
             "the table does not show the whole list")
        gone = self.api_order("status", limit=20)[0][:3]
        status, body = self.server.api("POST", "/v1/watches/remove", json.dumps({"numbers": gone}).encode())
        self.assertEqual(status, 200, body)
        wait(lambda: snapshot(self.d, "#table table", ROW_COUNT) == str(total - 2),
             "the removal never reached the table", timeout=10)
        self.assertEqual(serious_violations(self.d), [])
        self.d.execute_script("document.activeElement.blur()")
        screenshot(self, self.d, OUTPUT, "table", 1366)
        if os.environ.get("KURONEKO_SCREENSHOTS") == "1":  # README's picture, taken on purpose
            shutil.copyfile(os.path.join(OUTPUT, "table-1366.png"), os.path.join(ROOT, "docs", "screenshots", "table-1366.png"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
