"""After a missed delivery at each carrier, in headless Chromium against `kuroneko serve --demo`: the demo's
simulator brings a Yamato, a Sagawa and a Japan Post parcel back to their offices three to four hours before the
server started. All three count as needing attention; each card says until when the parcel is kept and whom to
call, with the carrier's redelivery page beside it; each parcel page says the same first, with the telephone as a tel: link; axe finds nothing serious."""

import datetime
import json
import os
import sys
import unittest

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Simulator"))
from server import BrowserTestCase, ROOT, Server, chromium, screenshot  # noqa: E402
from simulated_parcels import absent_number  # noqa: E402
from test_list_at_scale import wait  # noqa: E402
from test_webapp import serious_violations, snapshot  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))
# Whom to call: the office the simulated Sagawa and Japan Post pages name, Yamato's service centre.
CALL = {"yamato": ("ヤマト運輸サービスセンター", "0570-200-000"), "sagawa": ("城南営業所", "03-0000-1802"),
        "japanpost": ("高輪郵便局", "03-0000-9902")}


class NextStepTests(BrowserTestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        cls.server = Server().start()
        cls.numbers = {carrier: absent_number(carrier) for carrier in CALL}
        carriers = json.loads(cls.server.api("GET", "/v1/carriers")[1])["carriers"]
        cls.redelivery = {
            carrier: next(c for c in carriers if c["id"] == carrier)["redelivery_link"]["url"].replace("{number}", number)
            for carrier, number in cls.numbers.items()}
        cls.watches = {}
        for carrier, number in cls.numbers.items():
            status, body = cls.server.api("POST", "/v1/watches", json.dumps({"number": number}).encode())
            assert status == 201, body
            status, body = cls.server.api("POST", f"/v1/watches/{number}/refresh")
            assert status == 200, body
            cls.watches[carrier] = json.loads(body)
        cls.driver = chromium()

    def kept(self, carrier: str) -> str:
        missed = self.watches[carrier]["missed_delivery"]
        self.assertIsNotNone(missed, (carrier, self.watches[carrier]["shipment"]["status"]))
        day = datetime.date.fromisoformat(missed["kept_until"])
        return f"Kept until about {day.month}/{day.day}"

    def test_1_each_card_says_until_when_and_whom_to_call(self):
        self.d.get(self.server.url + "/")
        for carrier, number in self.numbers.items():
            office, telephone = CALL[carrier]
            card = f"#cards li[data-number='{number}']"
            line = wait(lambda: snapshot(self.d, f"{card} .card-kept"), f"no keeping date on the {carrier} card")
            self.assertIn(self.kept(carrier), line)
            self.assertIn(f"{office} {telephone}", line)
            # The action sits at the card's foot, below its last line, never over it (read at one moment).
            foot = wait(lambda: snapshot(self.d, card, """
                const action = e.querySelector('.card-action a');
                return action && {href: action.href, top: action.getBoundingClientRect().top,
                                  checked: e.querySelector('.card-checked').getBoundingClientRect().bottom};"""),
                        f"no action on the {carrier} card")
            self.assertEqual(foot["href"], self.redelivery[carrier])
            self.assertGreaterEqual(foot["top"], foot["checked"] - 1, f"the {carrier} card's action covers its last line")
        # Held after a missed delivery (Sagawa's ⇒保管中) needs its recipient as much as 持戻: all three count there.
        wait(lambda: snapshot(self.d, "#count-problem") == "Needs attention 3",
             lambda: f"the attention chip says {snapshot(self.d, '#count-problem')!r}, not Needs attention 3")
        self.assertEqual(self.d.find_elements(By.ID, "count-out"), [])
        screenshot(self, self.d, OUTPUT, "next-step-cards", 1200, whole=True)
        self.assertEqual(serious_violations(self.d), [])

    def test_2_each_parcel_page_leads_with_it(self):
        for carrier, number in self.numbers.items():
            office, telephone = CALL[carrier]
            self.d.get(self.server.url + f"/parcel/{number}")
            step = wait(lambda: self.d.find_elements(By.ID, "next-step"), f"no next step on the {carrier} page")[0]
            self.assertIn(self.kept(carrier), step.text)
            self.assertIn(office, step.text)
            dial = step.find_element(By.CSS_SELECTOR, "a[href^='tel:']")
            self.assertEqual(dial.get_attribute("href"), "tel:" + telephone.replace("-", ""))
            self.assertEqual(self.d.find_element(By.ID, "change-delivery").get_attribute("href"), self.redelivery[carrier])
        screenshot(self, self.d, OUTPUT, "next-step-parcel", 1200, whole=True)

    def test_3_redelivery_is_named_where_households_look_for_it(self):
        """In Japanese the button says 再配達 for every carrier (people look for that word, not 日時・場所の変更)."""
        from selenium.webdriver.support.ui import Select
        self.d.get(self.server.url + "/")
        Select(wait(lambda: self.d.find_elements(By.ID, "lang"), "no language choice")[0]).select_by_value("ja")
        try:
            for carrier, number in self.numbers.items():
                self.d.get(self.server.url + f"/parcel/{number}")
                link = wait(lambda: self.d.find_elements(By.ID, "change-delivery"), f"no change link for {carrier}")[0]
                self.assertEqual(link.text.strip(), "再配達・お届け日時の変更", carrier)
        finally:
            self.d.get(self.server.url + "/")
            Select(self.d.find_element(By.ID, "lang")).select_by_value("en")


if __name__ == "__main__":
    unittest.main(verbosity=2)
