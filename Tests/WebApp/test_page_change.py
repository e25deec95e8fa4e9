"""A carrier's changed page in the web app, in headless Chromium, against `kuroneko serve` in front of
`kuroneko simulate`: after the simulator's pages change, each watched parcel's card and page say the carrier's
page could not be read (in Japanese), keep the last answer, and the notice goes once the page is read again;
axe stays clean."""

import json
import os
import sys
import unittest
import urllib.request

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(__file__))
from server import ROOT, Server, Simulator, chromium, screenshot, tracking_numbers  # noqa: E402
from test_list_at_scale import wait  # noqa: E402
from test_webapp import cards, serious_violations, snapshot  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))
NOTICE = "運送会社のページを読めませんでした"


class PageChangeTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        cls.simulator = Simulator()
        cls.server = Server("--endpoint", f"yamato={cls.simulator.origin}/cgi-bin/tneko", "--min-interval", "0",
                            demo=False).start()
        cls.driver = chromium(360, 800, "ja")

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()
        cls.simulator.stop()

    def faults(self, changed: bool):
        request = urllib.request.Request(self.simulator.origin + "/admin/faults", method="PUT",
                                         data=json.dumps({"changed_layout": changed}).encode())
        urllib.request.urlopen(request, timeout=10).close()

    def watch(self, number):
        return json.loads(self.server.api("GET", f"/v1/watches/{number}")[1])

    def test_the_notice_comes_and_goes(self):
        numbers = [n for n in tracking_numbers(12, seed=3611) if n[0] not in "89"][:6]
        for number in numbers:
            status, answer = self.server.api("POST", "/v1/watches", json.dumps({"number": number}).encode())
            self.assertEqual(status, 201, answer[:300])
        wait(lambda: all(self.watch(n)["shipment"] for n in numbers), "the first checks never came")
        active = [n for n in numbers if self.watch(n)["active"]]
        self.assertTrue(active, "some parcels are on their way")
        number = active[0]
        before = self.watch(number)["shipment"]["status"]["label"]

        self.faults(True)
        status, answer = self.server.api("POST", f"/v1/watches/{number}/refresh")
        self.assertEqual(status, 502, answer[:300])
        self.assertEqual(json.loads(answer)["reason"], "page_not_understood")
        wait(lambda: self.watch(number)["page_not_understood_since"], "the watch was not marked")

        d = self.driver
        d.get(self.server.url + "/")
        d.execute_script("localStorage.setItem('kuroneko.lang', 'ja')")
        d.get(self.server.url + "/")
        wait(lambda: any(c["number"] == number for c in cards(d)), "the parcel was not listed")
        card = f'#cards > li[data-number="{number}"]'
        self.assertEqual(snapshot(d, f"{card} .card-unreadable"), NOTICE)
        self.assertIn(before, snapshot(d, f"{card} .badge"), "the last answer is still shown")
        others = d.execute_script("return [...document.querySelectorAll('#cards > li .card-unreadable')]"
                                  ".map(e => e.closest('li').dataset.number)")
        self.assertEqual(others, [number], "another card says its page was not understood")

        d.get(self.server.url + f"/parcel/{number}")
        wait(lambda: d.find_elements(By.ID, "parcel-unreadable"), "the parcel page says nothing")
        self.assertTrue(d.find_element(By.ID, "parcel-unreadable").text.startswith(NOTICE))
        self.assertEqual(d.find_element(By.ID, "parcel-status").text, before)
        self.assertEqual(serious_violations(d), [])
        screenshot(self, d, OUTPUT, "page-not-understood", 360)

        self.faults(False)
        status, answer = self.server.api("POST", f"/v1/watches/{number}/refresh")
        self.assertEqual(status, 200, answer[:300])
        d.get(self.server.url + f"/parcel/{number}")
        wait(lambda: d.find_elements(By.ID, "parcel-status"), "the parcel page did not load")
        self.assertEqual(d.find_elements(By.ID, "parcel-unreadable"), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
