"""The phone's first screen, in headless Chromium at 360×740 in Japanese against `kuroneko serve --demo`: a list with
one parcel kept after a missed delivery, two out for delivery, one under investigation (調査中) and two ネコポス in transit
shows the three that matter today on the first screen, today's first (out for delivery, then the missed one with its
last day), above the rest; the add form is folded; the 今日 chip counts the two out for delivery. The screenshot goes
to .build/webapp-test-output/first-screen-360x740.png (and with KURONEKO_SCREENSHOTS=1 to the README's
docs/screenshots/phone-first-screen.png). The notifications page previews this morning's summary."""

import json
import os
import shutil
import sys
import unittest
import urllib.request

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "Simulator"))
from server import BrowserTestCase, ROOT, Server, chromium  # noqa: E402
from simulated_parcels import absent_number, twelve  # noqa: E402
from test_list_at_scale import wait  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))
WIDTH, HEIGHT = 360, 740


def yamato_number(scenario: int, earliest: int, latest: int, skip: int = 0) -> str:
    """A Yamato number the demo's simulator gives journey `scenario` (its first eleven digits modulo 7: 0 delivered,
    3 ネコポス into the mailbox, 4 investigation then returned), handed in between `earliest` and `latest` minutes after the simulator's epoch
    (the server's start); `skip` takes a later one."""
    for eleven in range(20_000_000_000, 20_000_500_000):
        if eleven % 7 == scenario and earliest <= eleven // 7 % 2880 - 36 * 60 <= latest:
            if skip == 0:
                return twelve(eleven)
            skip -= 1
    raise AssertionError("no number fits")


class FirstScreenTests(BrowserTestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        cls.server = Server().start()
        # Handed in 20 h and a minute or two before: out for delivery (20 h to 22 h after hand-in) since a minute or
        # two before the start, so today's (the day of its 配達中 row) but in the first two minutes after midnight.
        cls.out = [yamato_number(0, -1202, -1201, skip) for skip in (0, 1)]
        # Nobody home 3 to 4 hours before the start: kept, with its last day.
        cls.missed = absent_number("yamato")
        # Under investigation (20 h to 30 h after hand-in: no day holds), and two ネコポス in transit (7 h to 18 h after
        # hand-in; a ネコポス page names no day): none of them today's whatever the hour.
        cls.investigated = yamato_number(4, -1500, -1440)
        cls.moving = [yamato_number(3, -800, -700, skip) for skip in (0, 1)]
        # Added in an order the screen must not keep: the rest first.
        numbers = [cls.investigated, *cls.moving, cls.missed, *cls.out]
        request = urllib.request.Request(
            cls.server.url + "/v1/watches", method="POST", headers={"Content-Type": "application/json"},
            data=json.dumps([{"number": number} for number in numbers]).encode())
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status in (200, 201, 207), answer.status
        cls.driver = chromium(WIDTH, HEIGHT, "ja")
        cls.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": True})
        cls.driver.get(cls.server.url + "/")
        cls.driver.execute_script("localStorage.setItem('kuroneko.lang', 'ja'); localStorage.removeItem('kuroneko.sort')")

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()

    def cards(self):
        return self.driver.execute_script("""
          return [...document.querySelectorAll('#cards > li')].map(li => {
            const r = li.getBoundingClientRect();
            return {number: li.dataset.number, top: r.top, bottom: r.bottom, text: li.innerText};
          });""")

    def test_today_leads_the_first_screen(self):
        driver = self.driver
        driver.get(self.server.url + "/")
        everyone = {self.investigated, *self.moving, self.missed, *self.out}

        def checked():
            cards = self.cards()
            numbers = {card["number"] for card in cards}
            # Every parcel answered, and the missed one shows its last day.
            return (numbers == everyone and all("確認中" not in card["text"] for card in cards)
                    and any(card["number"] == self.missed and "保管" in card["text"] for card in cards))
        wait(checked, "the six parcels, checked")
        driver.execute_script("window.scrollTo(0, 0)")
        cards = self.cards()
        order = [card["number"] for card in cards]
        self.assertEqual(set(order[:2]), set(self.out), f"out for delivery first: {order}")
        self.assertEqual(order[2], self.missed, f"then the missed one: {order}")
        height = driver.execute_script("return window.innerHeight")
        self.assertEqual(height, HEIGHT)
        for card in cards[:3]:
            self.assertLessEqual(card["bottom"], height, f"{card['number']} below the fold: {cards[:4]}")
        self.assertIn("保管", cards[2]["text"], "the missed card names its last day")
        # The add form folded; the 今日 chip counts the two out for delivery.
        self.assertFalse(driver.execute_script("return document.getElementById('add-panel').open"))
        today_chip = driver.find_element(By.ID, "count-today").text
        self.assertIn("2", today_chip, today_chip)
        path = os.path.join(OUTPUT, "first-screen-360x740.png")
        driver.save_screenshot(path)
        if os.environ.get("KURONEKO_SCREENSHOTS") == "1":  # README's picture, taken on purpose
            shutil.copyfile(path, os.path.join(ROOT, "docs", "screenshots", "phone-first-screen.png"))


    def test_the_morning_summary_previewed(self):
        """The notifications page shows this morning's summary as a channel would get it: the two out for delivery
        and the missed one with its last day and whom to call."""
        driver = self.driver
        driver.get(self.server.url + "/settings")
        wait(lambda: driver.find_elements(By.ID, "summary-preview-button"), "no preview button")
        driver.find_element(By.ID, "summary-preview-button").click()
        wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#summary-preview pre"), "no summary shown")
        text = driver.find_element(By.CSS_SELECTOR, "#summary-preview pre").text
        self.assertIn("今日の荷物（3件）", text)
        self.assertIn("■ 配達中", text)
        self.assertIn("不在で保管中", text)
        self.assertIn("連絡先:", text)
        self.assertNotIn("null", text)


if __name__ == "__main__":
    unittest.main()
