"""Adding parcels from a saved shipping mail in the web app, in headless Chromium against `kuroneko serve
--demo`: a chosen .eml adds its parcels named after the shop and the order, a mail with none says so, one whose
shop delivers itself says who does; at phone width in Japanese, axe clean."""

import json
import os
import sys
import unittest

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(__file__))
from server import ROOT, Server, phone_in_japanese, screenshot  # noqa: E402
from test_list_at_scale import wait  # noqa: E402
from test_webapp import cards, serious_violations  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))
CORPUS = os.path.join(ROOT, "Tests", "Fixtures", "mail")


class MailUploadTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        cls.server = Server().start()
        cls.driver = phone_in_japanese(cls.server)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()

    def choose(self, name):
        d = self.driver
        d.get(self.server.url + "/")
        wait(lambda: d.find_elements(By.ID, "add-toggle"), "the page did not load")
        if not d.execute_script("return document.getElementById('add-panel').open"):
            d.find_element(By.ID, "add-toggle").click()
        d.find_element(By.ID, "mail-file").send_keys(os.path.join(CORPUS, name))

    def result(self):
        return self.driver.find_element(By.ID, "add-result").text

    def test_a_mail_adds_its_parcels(self):
        self.choose("apple-two-parcels.eml")
        wait(lambda: "メールから 2 件追加しました" in self.result(), lambda: f"no result: {self.result()!r}")
        watches = json.loads(self.server.api("GET", "/v1/watches?limit=50")[1])["watches"]
        labels = sorted(w["label"] for w in watches)
        self.assertEqual(labels, ["Apple Store W1234567890", "Apple Store W1234567890"])
        wait(lambda: len(cards(self.driver)) == 2, "the two parcels were not listed")
        self.assertEqual(serious_violations(self.driver), [])
        screenshot(self, self.driver, OUTPUT, "mail-upload-ja", 360)
        # The parcel's page says which mail it came from.
        number = watches[0]["number"]
        self.driver.get(self.server.url + f"/parcel/{number}")
        wait(lambda: "お客様の商品は配送中です" in self.driver.find_element(By.ID, "parcel").text,
             "the parcel page does not name its mail")
        self.assertIn("shipping_notification_jp@orders.apple.com", self.driver.find_element(By.ID, "parcel").text)
        # The same mail again adds nothing new.
        self.choose("apple-two-parcels.eml")
        wait(lambda: "すでに" in self.result() or "登録" in self.result(), lambda: f"no result: {self.result()!r}")

    def test_no_number_and_own_delivery_are_said(self):
        self.choose("traps.eml")
        wait(lambda: "追跡番号が見つかりませんでした" in self.result(), lambda: f"no result: {self.result()!r}")
        self.choose("yodobashi-extreme.eml")
        wait(lambda: "ヨドバシエクストリームサービス便がお届けします" in self.result(), lambda: f"no result: {self.result()!r}")

    def test_z_a_mail_of_more_than_a_hundred_numbers_says_so(self):
        # Runs last (the order is by name): it adds a hundred watches.
        numbers = [f"{first}{first % 7}" for first in range(70_000_000_000, 70_000_000_120)]
        path = os.path.join(OUTPUT, "crowded.eml")
        with open(path, "w", encoding="utf-8") as file:
            file.write("Subject: list\r\n\r\n" + "".join(f"お問い合わせ伝票番号：{n}\r\n" for n in numbers))
        self.choose(path)  # an absolute path: os.path.join keeps it
        wait(lambda: "最初の100件だけを追加しました" in self.result(), lambda: f"no result: {self.result()!r}")
        self.assertIn("メールから 100 件追加しました", self.result())


if __name__ == "__main__":
    unittest.main(verbosity=2)
