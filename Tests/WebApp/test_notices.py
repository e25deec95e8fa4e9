"""Customer notices in the web app, in headless Chromium at phone width in Japanese against `kuroneko serve --demo`
(a server that sends no mail): the settings page's panel says the server cannot send yet, saves the shop's name,
address, contact, milestones, language, character set and template (as the API then serves them) and refuses to
turn notices on with the server's reason; a parcel whose record has the recipient's e-mail shows its notices and
previews a milestone's notice, the same text as `POST /v1/notices/preview`; axe finds nothing serious."""

import json
import os
import sys
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.dirname(__file__))
from server import BrowserTestCase, ROOT, Server, phone_in_japanese, screenshot, tracking_numbers  # noqa: E402
from test_list_at_scale import wait  # noqa: E402
from test_webapp import serious_violations, snapshot  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))


class CustomerNoticeTests(BrowserTestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        cls.server = Server().start()
        cls.number = tracking_numbers(1, seed=4601)[0]
        record = {"reference": "ORD-4601", "recipient": {"name": "山田 花子", "email": "hanako@example.jp"}}
        status, body = cls.server.api("POST", "/v1/watches", json.dumps({"number": cls.number, "record": record}).encode())
        assert status == 201, body
        status, body = cls.server.api("POST", f"/v1/watches/{cls.number}/refresh")
        assert status == 200, body
        cls.driver = phone_in_japanese(cls.server)

    def test_1_the_shop_saves_its_settings(self):
        self.d.get(self.server.url + "/settings")
        wait(lambda: self.d.find_elements(By.ID, "notices-form"), "no notices panel on the settings page")
        self.assertIn("--smtp-url", self.d.find_element(By.ID, "notices-cannot-send").text)
        for field, value in [("notices-shop-name", "くろねこ雑貨店"), ("notices-shop-address", "東京都渋谷区神南1-2-3"),
                             ("notices-shop-contact", "03-1234-5678")]:
            self.d.find_element(By.ID, field).send_keys(value)
        self.d.find_element(By.CSS_SELECTOR, "input[data-milestone='problem']").click()  # off
        Select(self.d.find_element(By.ID, "notices-charset")).select_by_value("utf-8")
        subject = self.d.find_element(By.ID, "notices-subject")
        subject.clear()
        subject.send_keys("【{{shop}}】{{title}}")
        self.d.find_element(By.ID, "notices-save").click()
        wait(lambda: "保存しました" in self.d.find_element(By.ID, "notices-result").text, "the settings were not saved")
        saved = json.loads(self.server.api("GET", "/v1/notices/settings")[1])
        self.assertEqual(saved["shop"]["name"], "くろねこ雑貨店")
        self.assertEqual(saved["milestones"], ["shipped", "out_for_delivery", "delivered", "missed_delivery"])
        self.assertEqual((saved["charset"], saved["templates"]["ja"]["subject"]), ("utf-8", "【{{shop}}】{{title}}"))
        self.assertFalse(saved["enabled"])
        self.d.find_element(By.ID, "notices-enabled").click()
        self.d.find_element(By.ID, "notices-save").click()
        refusal = wait(lambda: snapshot(self.d, "#notices-result .error"), "turning notices on was not refused")
        self.assertIn("--smtp-url", refusal)
        self.assertEqual(serious_violations(self.d), [])
        screenshot(self, self.d, OUTPUT, "notices-settings-ja", 360)

    def test_2_a_parcel_previews_its_notice(self):
        self.d.get(self.server.url + f"/parcel/{self.number}")
        wait(lambda: self.d.find_elements(By.ID, "notices-section"), "no notices section on the parcel page")
        wait(lambda: snapshot(self.d, "#notices li"), "the parcel's notices were not listed")
        Select(self.d.find_element(By.ID, "notice-milestone")).select_by_value("delivered")
        self.d.find_element(By.ID, "notice-preview-button").click()
        text = wait(lambda: snapshot(self.d, "#notice-text"), "no preview shown")
        status, body = self.server.api("POST", "/v1/notices/preview", json.dumps(
            {"number": self.number, "milestone": "delivered"}).encode())
        preview = json.loads(body)
        self.assertEqual(status, 200)
        self.assertEqual(text.strip(), preview["text"].strip())
        self.assertIn("山田 花子 様", text)
        self.assertIn("ORD-4601", text)
        self.assertIn("くろねこ雑貨店", text)
        self.assertIn("/notices/stop?t=", text)
        self.assertEqual(snapshot(self.d, "#notice-subject"), preview["subject"])
        self.assertEqual(serious_violations(self.d), [])
        screenshot(self, self.d, OUTPUT, "notice-preview-ja", 360)


if __name__ == "__main__":
    unittest.main(verbosity=2)
