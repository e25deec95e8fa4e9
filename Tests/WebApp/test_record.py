"""The parcel record in the web app, in headless Chromium at phone width in Japanese against `kuroneko serve
--demo`: the card shows the shop's reference and the recipient; the parcel page shows the whole record and saves
a note and the 対応済み mark in place (as the API then serves them); the search box finds the parcel by its
telephone typed without hyphens; a line copied from a shipping mail, pasted into the number field, is read for
its number rather than refused; axe finds nothing serious."""

import json
import os
import sys
import unittest

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(__file__))
from server import BrowserTestCase, ROOT, Server, phone_in_japanese, screenshot, tracking_numbers  # noqa: E402
from test_list_at_scale import wait  # noqa: E402
from test_webapp import serious_violations, snapshot  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))


class ParcelRecordTests(BrowserTestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        cls.server = Server().start()
        cls.numbers = tracking_numbers(3, seed=2612)
        record = {"reference": "ORD-0042", "recipient": {"name": "髙橋 花子", "telephone": "090-1234-5678"},
                  "shipped_on": "2026-12-01", "fields": [{"name": "品名", "value": "冬靴"}]}
        status, body = cls.server.api("POST", "/v1/watches",
                                      json.dumps({"number": cls.numbers[0], "record": record}).encode())
        assert status == 201, body
        status, body = cls.server.api("POST", "/v1/watches", json.dumps({"number": cls.numbers[1]}).encode())
        assert status == 201, body
        cls.driver = phone_in_japanese(cls.server)

    def test_1_the_card_and_the_search(self):
        self.d.get(self.server.url + "/")
        line = wait(lambda: snapshot(self.d, f"#cards li[data-number='{self.numbers[0]}'] .card-record"),
                    "no record on the card")
        self.assertIn("ORD-0042", line)
        self.assertIn("髙橋 花子", line)
        search = self.d.find_element(By.ID, "search")
        search.send_keys("09012345678")
        wait(lambda: [li.get_attribute("data-number") for li in self.d.find_elements(By.CSS_SELECTOR, "#cards > li")]
             == [self.numbers[0]], "the telephone did not find its parcel alone")
        search.clear()
        search.send_keys(" ")
        self.assertEqual(serious_violations(self.d), [])

    def test_2_the_parcel_page_saves_a_note_and_handled(self):
        self.d.get(self.server.url + f"/parcel/{self.numbers[0]}")
        section = wait(lambda: self.d.find_elements(By.ID, "record-section"), "no record on the parcel page")[0]
        self.assertIn("ORD-0042", section.text)
        self.assertIn("冬靴", section.text)
        telephone = section.find_element(By.CSS_SELECTOR, "a[href^='tel:']")
        self.assertEqual(telephone.get_attribute("href"), "tel:09012345678")
        note = self.d.find_element(By.ID, "record-note")
        note.send_keys("再配達を依頼済み")
        self.d.find_element(By.ID, "record-handled").click()
        self.d.find_element(By.ID, "record-save").click()
        wait(lambda: "保存しました" in self.d.find_element(By.ID, "record-result").text, "the note was not saved")
        watch = json.loads(self.server.api("GET", f"/v1/watches/{self.numbers[0]}")[1])
        self.assertEqual(watch["record"]["note"], "再配達を依頼済み")
        self.assertIsNotNone(watch["record"]["handled"])
        self.assertEqual(watch["record"]["reference"], "ORD-0042")
        self.assertIn("対応済み", self.d.find_element(By.ID, "record-handled-by").text)
        self.assertEqual(serious_violations(self.d), [])
        screenshot(self, self.d, OUTPUT, "parcel-record-ja", 360)

    def test_3_a_line_of_a_mail_is_read_for_its_number(self):
        self.d.get(self.server.url + "/")
        toggle = wait(lambda: self.d.find_elements(By.ID, "add-toggle"), "no add panel")[0]
        if not self.d.find_element(By.ID, "numbers").is_displayed():
            toggle.click()
        field = self.d.find_element(By.ID, "numbers")
        digits = self.numbers[2]
        pasted = f"お問い合わせ伝票番号：{digits[:4]}-{digits[4:8]}-{digits[8:]}"
        self.d.execute_script(
            "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", field, pasted)
        wait(lambda: "読み取ります" in self.d.find_element(By.ID, "number-errors").text,
             "the pasted line is not said to be read")
        self.d.find_element(By.ID, "add-button").click()
        wait(lambda: self.d.find_elements(By.CSS_SELECTOR, f"#cards li[data-number='{digits}']"),
             lambda: f"the number in the pasted line was not added: {self.d.find_element(By.ID, 'add-result').text!r}")
        self.assertEqual(field.get_attribute("value"), "", "the line read stays in the field")


if __name__ == "__main__":
    unittest.main(verbosity=2)
