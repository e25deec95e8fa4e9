"""The arrival estimate and the days to deliver in headless Chromium, against `kuroneko serve` and a simulator
standing still: twelve ネコポス parcels handed in 36 to 28 hours before the simulator's epoch were put in the mailbox
before it (the history); two more handed in two hours before it are on their way, and a ネコポス page gives no
planned day. Each of those two parcel pages says the estimate the API gives, worded as an estimate; the settings
page's days-to-deliver table shows the API's rows, its CSV link is the API's sheet; axe finds nothing serious."""

import calendar
import csv
import io
import json
import os
import sys
import unittest

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(__file__))
from server import BrowserTestCase, ROOT, chromium, screenshot, still_simulator_and_server  # noqa: E402
from test_list_at_scale import wait  # noqa: E402
from test_webapp import serious_violations  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))


def nekopos(hand_in_minutes: int) -> str:
    """A Yamato number the simulator makes a ネコポス (its first eleven digits 3 modulo 7), handed in
    `hand_in_minutes` after the simulator's epoch (from -2160 to 720), as Sources/KuronekoSimulator works it out."""
    target = hand_in_minutes + 36 * 60
    base = 31_000_000_000 // 7
    quotient = base + (target - base) % 2880
    eleven = 7 * quotient + 3
    return f"{eleven:011d}{eleven % 7}"


class ForecastTests(BrowserTestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        cls.simulator, cls.server = still_simulator_and_server()
        cls.history = [nekopos(minutes) for minutes in range(-2160, -1680, 40)]
        cls.coming = [nekopos(-120), nekopos(-100)]
        for number in cls.history + cls.coming:
            status, body = cls.server.api("POST", "/v1/watches", json.dumps({"number": number, "carrier": "yamato"}).encode())
            assert status == 201, body
            status, body = cls.server.api("POST", f"/v1/watches/{number}/refresh")
            assert status == 200, body
        cls.driver = chromium()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls.simulator.stop()

    def api(self, path):
        status, body = self.server.api("GET", path)
        self.assertEqual(status, 200, body[:300])
        return body

    def test_1_a_parcel_on_its_way_shows_the_estimate(self):
        for number in self.coming:
            answer = json.loads(self.api(f"/v1/watches/{number}/estimate"))
            estimate = answer["estimate"]
            self.assertIsNotNone(estimate, answer)
            # Learnt from the ネコポス before it (from one office, as the simulator sends them), not the carrier as a whole.
            self.assertIn(estimate["basis"], ("carrier_office", "carrier_product"))
            self.assertEqual(estimate["parcels"], len(self.history))
            self.d.get(self.server.url + f"/parcel/{number}")
            line = wait(lambda: [e for e in self.d.find_elements(By.ID, "parcel-estimate") if e.is_displayed() and e.text],
                        f"no estimate on {number}'s page")[0]
            month, day = int(estimate["day"][5:7]), int(estimate["day"][8:10])
            self.assertIn("Likely around", line.text)
            self.assertIn(f"your {len(self.history)} past parcels, not the carrier's word", line.text)
            self.assertIn(f"{day} {calendar.month_abbr[month]}", line.text)
        self.assertEqual(serious_violations(self.d), [])
        screenshot(self, self.d, OUTPUT, "estimate-parcel", 1200, whole=True)

    def test_2_the_days_to_deliver_are_the_apis(self):
        rows = json.loads(self.api("/v1/watches/delivery-days"))["rows"]
        self.assertEqual([(r["carrier"], r["parcels"]) for r in rows], [("yamato", len(self.history))])
        self.d.get(self.server.url + "/settings")
        panel = wait(lambda: [e for e in self.d.find_elements(By.ID, "delivery-days") if e.is_displayed()],
                     "no days-to-deliver table on the settings page")[0]
        self.d.execute_script("arguments[0].scrollIntoView()", panel)
        cells = [[c.text for c in tr.find_elements(By.CSS_SELECTOR, "th, td")]
                 for tr in panel.find_elements(By.CSS_SELECTOR, "tbody tr")]
        self.assertEqual(cells, [[r["carrier"], r["prefecture"] or "not known", str(r["parcels"]), str(r["median_days"]),
                                  str(r["p90_days"]), "—"] for r in rows])
        link = panel.find_element(By.ID, "delivery-days-csv").get_attribute("href")
        self.assertEqual(link, self.server.url + "/v1/watches/delivery-days?format=csv")
        sheet = list(csv.reader(io.StringIO(self.api("/v1/watches/delivery-days?format=csv").decode())))
        self.assertEqual(sheet[1][:5], [rows[0]["carrier"], "", str(rows[0]["parcels"]), str(rows[0]["median_days"]),
                                        str(rows[0]["p90_days"])])
        self.assertEqual(serious_violations(self.d), [])
        screenshot(self, self.d, OUTPUT, "delivery-days", 1200, whole=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
