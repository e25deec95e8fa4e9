"""The web app in a real headless Chromium against `kuroneko serve --demo` on 127.0.0.1: adding numbers
(valid, invalid, a pasted list of 20), statuses, a parcel's page and its reload, language and theme, live
updates answered 304 when nothing changed, removing, API keys, accessibility (axe-core: no serious or
critical violation), no horizontal scrolling at 360 px, screenshots at 1200 and 360 px, and the service
worker's last list once the server is gone, and Chromium's verdict that the app is installable. Screenshots go to $WEBAPP_OUTPUT (default
.build/webapp-test-output)."""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(__file__))
from server import BINARY, BrowserTestCase, ROOT, Server, check_digit, chromium, screenshot, tracking_numbers  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))
WAIT = 30


def wait(driver, condition, message, timeout=WAIT):
    # The page redraws as it polls and refreshes: an element found a moment ago may be gone when it is read.
    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=[StaleElementReferenceException]).until(lambda _: condition(), message)


def cards(driver):
    """The cards as they are at one moment (the page redraws them as it polls, so elements go stale)."""
    return driver.execute_script("""
        return [...document.querySelectorAll('#cards > li')].map(li => ({
            number: li.dataset.number, family: (li.className.match(/family-(\\w+)/) || [])[1],
            title: li.querySelector('.card-title').textContent, badge: li.querySelector('.badge').textContent}));""")


def snapshot(driver, selector, script="return e.innerText"):
    """What `script` returns of the first element `selector` names, read at one moment, or None where there is none.
    The page redraws its cards as the list changes, so an element held from one step to the next may be gone."""
    return driver.execute_script(f"const e = document.querySelector(arguments[0]); if (!e) return null; {script}",
                                 selector)


def formatted(number):
    return f"{number[:4]}-{number[4:8]}-{number[8:]}"


def fullwidth(text):
    return "".join(chr(ord(c) + 0xFEE0) if c.isdigit() else c for c in text)


def serious_violations(driver):
    from axe_selenium_python import Axe

    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in results["violations"] if v["impact"] in ("serious", "critical")]


class WebAppTests(BrowserTestCase):
    """One server and one browser, the steps in order (unittest runs them by name)."""

    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        cls.server = Server("--allow-private-webhooks").start()
        cls.driver = chromium()
        cls.numbers = tracking_numbers(24, seed=2026)
        cls.driver.get(cls.server.url + "/")
        cls.driver.execute_script("localStorage.setItem('kuroneko.pollSeconds', '2')")
        cls.driver.get(cls.server.url + "/")

    def shot(self, name, width):
        screenshot(self, self.d, OUTPUT, name, width)

    def browser_errors(self):
        return [entry["message"] for entry in self.d.get_log("browser") if entry["level"] == "SEVERE"]

    def test_01_page_loads_without_errors_and_in_english(self):
        wait(self.d, lambda: self.d.find_elements(By.ID, "add-form"), "the add form never showed")
        self.assertEqual(self.d.find_element(By.TAG_NAME, "h1").text, "Your parcels")
        self.assertEqual(self.d.execute_script("return document.documentElement.lang"), "en")
        wait(self.d, lambda: self.d.find_element(By.ID, "empty").text != "", "the empty list was never explained")
        self.assertIn("No parcels yet", self.d.find_element(By.ID, "empty").text)
        self.assertEqual(self.browser_errors(), [])

    def test_02_invalid_numbers_are_named_as_you_type(self):
        field = self.d.find_element(By.ID, "numbers")
        field.send_keys(f"{formatted(self.numbers[0])}\n1234 5678 9012\n12345\nabc-def")
        errors = lambda: [li.text for li in self.d.find_elements(By.CSS_SELECTOR, "#number-errors li")]
        wait(self.d, lambda: len(errors()) == 3, "three bad numbers were not each named")
        self.assertIn("“1234 5678 9012”: the check digit is 2, expected 3", errors()[0])
        self.assertIn("“12345”: 5 digits; a tracking number has 10 to 13", errors()[1])
        self.assertIn("“abc-def”: not a tracking number", errors()[2])
        self.assertEqual(field.get_attribute("aria-invalid"), "true")
        self.assertEqual(self.d.find_element(By.ID, "ready-count").text, "1 ready to add")
        self.d.find_element(By.ID, "label").send_keys("Gift <for Mum> & co")
        self.d.find_element(By.ID, "add-button").click()
        wait(self.d, lambda: len(cards(self.d)) == 1, "the valid number never became a card")
        wait(self.d, lambda: "Added 1." in self.d.find_element(By.ID, "add-result").text, "no word of the add")
        # The bad ones stay in the field to be corrected; the label is text, not markup.
        self.assertEqual(field.get_attribute("value"), "1234 5678 9012\n12345\nabc-def")
        self.assertEqual(cards(self.d)[0]["title"], "Gift <for Mum> & co")

    def test_03_a_pasted_list_of_20_becomes_20_cards_with_statuses(self):
        field = self.d.find_element(By.ID, "numbers")
        field.clear()
        pasted = []
        for index, number in enumerate(self.numbers[1:21]):
            text = [formatted(number), f"{number[:4]} {number[4:8]} {number[8:]}", fullwidth(number),
                    fullwidth(formatted(number)).replace("-", "ー")][index % 4]
            pasted.append(text)
        text = "\n".join(", ".join(pasted[i:i + 3]) for i in range(0, 20, 3))
        self.d.execute_script(
            "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", field, text)
        wait(self.d, lambda: self.d.find_element(By.ID, "ready-count").text == "20 ready to add", "20 not all valid")
        self.assertEqual(self.d.find_elements(By.CSS_SELECTOR, "#number-errors li"), [])
        self.d.find_element(By.ID, "add-button").click()
        wait(self.d, lambda: len(cards(self.d)) == 21, "the 20 pasted numbers did not all become cards")
        self.assertIn("Added 20.", self.d.find_element(By.ID, "add-result").text)
        self.assertEqual(field.get_attribute("value"), "")
        # The poller's first checks reach the page by itself (no reload): every card gets a status.
        pending = lambda: [c for c in cards(self.d) if c["family"] == "pending"]
        wait(self.d, lambda: not pending(), "some cards never got a status", timeout=60)
        families = {c["family"] for c in cards(self.d)}
        self.assertTrue(families <= {"accepted", "shipped", "transit", "out", "delivered", "problem", "waiting",
                                     "returning", "returned"}, families)
        _, body = self.server.api("GET", "/v1/watches?limit=500")
        watches = {w["number"]: w for w in json.loads(body)["watches"]}
        self.assertEqual(set(watches), set(self.numbers[:21]))
        going_back = {"returning": "Returning to the sender", "returned": "Returned to the sender"}
        for card in cards(self.d):
            watch = watches[card["number"]]
            self.assertEqual(card["badge"], going_back.get(watch["family"], watch["shipment"]["status"]["label_en"]))

    def test_04_sort_and_filter(self):
        Select(self.d.find_element(By.ID, "sort")).select_by_value("date")
        wait(self.d, lambda: self.d.execute_script("return localStorage.getItem('kuroneko.sort')") == "date", "no sort")
        times = [card["number"] for card in cards(self.d)]
        _, body = self.server.api("GET", "/v1/watches?limit=500")
        latest = {w["number"]: (w["shipment"]["events"] or [{"at": ""}])[-1]["at"] or "" for w in json.loads(body)["watches"]}
        self.assertEqual([latest[n] for n in times], sorted((latest[n] for n in times), reverse=True))
        self.d.find_element(By.CSS_SELECTOR, "input[name=filter][value=finished]").click()
        finished = [w for w in json.loads(body)["watches"] if not w["active"]]
        wait(self.d, lambda: len(cards(self.d)) == len(finished), "the finished filter shows the wrong cards")
        self.d.find_element(By.CSS_SELECTOR, "input[name=filter][value=all]").click()
        wait(self.d, lambda: len(cards(self.d)) == 21, "all parcels did not come back")
        Select(self.d.find_element(By.ID, "sort")).select_by_value("status")

    def test_05_a_parcel_page_and_its_reload(self):
        _, body = self.server.api("GET", "/v1/watches?limit=500")
        number = next(w["number"] for w in json.loads(body)["watches"] if len(w["shipment"]["events"]) >= 2)
        # By keyboard alone: Tab from the top until the card has the focus, then Enter.
        # (From the document's start: a click on the body lands on whatever control is at its middle.)
        self.d.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
        focused = lambda: self.d.execute_script(
            "const a = document.activeElement; return a && a.closest('li') ? a.closest('li').dataset.number : null")
        for _ in range(80):
            if focused() == number:
                break
            ActionChains(self.d).send_keys(Keys.TAB).perform()
        self.assertEqual(focused(), number, "Tab never reached the card")
        ActionChains(self.d).send_keys(Keys.ENTER).perform()
        wait(self.d, lambda: self.d.current_url.endswith(f"/parcel/{number}"), "the card did not open its page")
        wait(self.d, lambda: self.d.find_elements(By.CSS_SELECTOR, "#timeline tbody tr"), "no timeline")
        _, body = self.server.api("GET", f"/v1/watches/{number}")
        watch = json.loads(body)
        rows = self.d.find_elements(By.CSS_SELECTOR, "#timeline tbody tr")
        self.assertEqual(len(rows), len(watch["shipment"]["events"]))
        self.assertIn(watch["shipment"]["events"][-1]["label_en"], rows[0].text)
        summary = watch["shipment"]["status"]["summary"]
        if summary:
            self.assertIn(summary, self.d.find_element(By.CSS_SELECTOR, ".facts").text)
        form = wait(self.d, lambda: self.d.find_elements(By.CSS_SELECTOR, "form#carrier-site"), "no form to Yamato")[0]
        self.assertEqual(form.get_attribute("action"), "https://toi.kuronekoyamato.co.jp/cgi-bin/tneko")
        self.assertEqual(form.find_element(By.NAME, "number01").get_attribute("value"), number)
        self.d.refresh()
        wait(self.d, lambda: self.d.find_elements(By.CSS_SELECTOR, "#timeline tbody tr"), "reloading lost the page")
        self.assertEqual(self.d.find_element(By.ID, "parcel").get_attribute("data-number"), number)
        self.d.find_element(By.ID, "refresh").click()
        wait(self.d, lambda: self.d.find_element(By.ID, "refresh").text == "Check now", "refresh never finished")
        self.d.execute_script("document.activeElement.blur()")
        self.shot("parcel", 1200)
        self.shot("parcel", 360)
        self.assertEqual(serious_violations(self.d), [])
        self.d.get(self.server.url + "/parcel/1234")
        wait(self.d, lambda: "is not a tracking number" in self.d.find_element(By.TAG_NAME, "h1").text, "bad address")
        self.d.get(self.server.url + f"/parcel/{self.numbers[23]}")
        wait(self.d, lambda: "is not on your list" in self.d.find_element(By.TAG_NAME, "h1").text, "unwatched")
        self.d.get(self.server.url + "/")

    def test_06_language_and_theme_switch_and_stay(self):
        wait(self.d, lambda: len(cards(self.d)) == 21, "the list did not come back")
        Select(self.d.find_element(By.ID, "lang")).select_by_value("ja")
        wait(self.d, lambda: self.d.find_element(By.TAG_NAME, "h1").text == "お荷物一覧", "not in Japanese")
        self.assertEqual(self.d.execute_script("return document.documentElement.lang"), "ja")
        _, body = self.server.api("GET", "/v1/watches?limit=500")
        watches = {w["number"]: w for w in json.loads(body)["watches"]}
        # A parcel going back says so, whatever its latest row (返品, then 輸送中 on the way back), and offers
        # no change of delivery; any other card shows its status's label.
        going_back = {"returning": "返送中", "returned": "返送済み"}
        for card in cards(self.d):
            watch = watches[card["number"]]
            expected = going_back.get(watch["family"], watch["shipment"]["status"]["label"])
            self.assertEqual(card["badge"], expected)
            if watch["family"] in going_back:
                self.assertFalse(self.d.execute_script(
                    "return !!document.querySelector(`li.card[data-number='${arguments[0]}'] .change-delivery`)",
                    card["number"]), f"a change of delivery is offered for {card['number']}, which goes back")
        Select(self.d.find_element(By.ID, "theme")).select_by_value("dark")
        background = lambda: self.d.execute_script("return getComputedStyle(document.body).backgroundColor")
        wait(self.d, lambda: background() == "rgb(17, 22, 28)", "the dark theme did not apply")
        self.assertEqual(serious_violations(self.d), [])
        self.shot("list-ja-dark", 1200)
        self.d.refresh()
        wait(self.d, lambda: self.d.find_element(By.TAG_NAME, "h1").text == "お荷物一覧", "Japanese not kept")
        self.assertEqual(background(), "rgb(17, 22, 28)")
        Select(self.d.find_element(By.ID, "theme")).select_by_value("light")
        wait(self.d, lambda: background() == "rgb(244, 246, 248)", "the light theme did not apply")
        Select(self.d.find_element(By.ID, "lang")).select_by_value("en")
        wait(self.d, lambda: self.d.find_element(By.TAG_NAME, "h1").text == "Your parcels", "not back in English")
        wait(self.d, lambda: len(cards(self.d)) == 21, "cards lost in the switch")
        self.assertEqual(serious_violations(self.d), [])
        Select(self.d.find_element(By.ID, "sort")).select_by_value("date")
        self.d.execute_script("document.activeElement.blur()")
        self.shot("list", 1200)
        self.shot("list", 360)

    def test_07_live_updates_without_reload_and_304_when_unchanged(self):
        unchanged = r"route=/v1/watches status=304"
        self.server.wait_for_log(unchanged, count=2)
        status, _ = self.server.api("POST", "/v1/watches", json.dumps({"number": self.numbers[21], "label": "added elsewhere"}).encode())
        self.assertEqual(status, 201)
        wait(self.d, lambda: len(cards(self.d)) == 22, "a watch added elsewhere never showed up")
        titles = [card["title"] for card in cards(self.d)]
        self.assertIn("added elsewhere", titles)

    def test_08_a_server_refusal_is_shown_in_plain_words(self):
        self.d.find_element(By.CSS_SELECTOR, "#more-options summary").click()
        self.d.find_element(By.ID, "webhook-url").send_keys("ftp://files.example/hook")
        self.d.find_element(By.ID, "numbers").send_keys(self.numbers[22])
        self.d.find_element(By.ID, "add-button").click()
        result = lambda: self.d.find_element(By.ID, "add-result").text
        wait(self.d, lambda: formatted(self.numbers[22]) in result(), "the refusal was not shown")
        self.assertIn("ftp", result())
        self.assertEqual(self.d.find_element(By.ID, "numbers").get_attribute("value"), self.numbers[22])

    def test_09_a_webhook_and_the_calendar_are_reachable_from_the_page(self):
        hook = self.d.find_element(By.ID, "webhook-url")
        hook.clear()
        hook.send_keys("http://127.0.0.1:9/hook")
        self.d.find_element(By.ID, "add-button").click()
        result = lambda: self.d.find_element(By.ID, "add-result").text
        wait(self.d, lambda: "whsec_" in result(), "the webhook secret was not shown once")
        self.assertIn(f"Webhook secret for {formatted(self.numbers[22])}", result())
        hook.clear()
        self.d.get(self.server.url + f"/parcel/{self.numbers[22]}")
        wait(self.d, lambda: self.d.find_elements(By.ID, "webhook-section"), "no webhook section")
        section = self.d.find_element(By.ID, "webhook-section").text
        shown = self.d.find_element(By.ID, "parcel-webhook-url").get_attribute("value")
        self.assertEqual(shown, "http://127.0.0.1:9/hook", "the webhook is shown in its field, to change in place")
        self.assertIn("Nothing delivered yet.", section)  # webhooks follow changes; none has happened yet
        calendar = self.d.find_element(By.ID, "calendar-link").get_attribute("href")
        status, body = self.server.api("GET", calendar.replace(self.server.url, ""))
        self.assertEqual(status, 200)
        self.assertTrue(body.startswith(b"BEGIN:VCALENDAR"))
        self.d.get(self.server.url + "/")
        wait(self.d, lambda: len(cards(self.d)) == 23, "the list did not come back")

    def test_10_remove_a_parcel(self):
        number = cards(self.d)[-1]["number"]
        self.browser_errors()  # read (and so drop) what came before: the unwatched number's 404
        self.d.get(self.server.url + f"/parcel/{number}")
        wait(self.d, lambda: self.d.find_elements(By.ID, "remove"), "no remove button")
        self.d.find_element(By.ID, "remove").click()
        confirm = self.d.find_element(By.ID, "confirm-remove-yes")
        wait(self.d, lambda: confirm.is_displayed(), "removing was not confirmed first")
        self.assertEqual(self.server.api("GET", f"/v1/watches/{number}")[0], 200)
        confirm.click()
        wait(self.d, lambda: self.d.current_url == self.server.url + "/", "removing did not go back to the list")
        wait(self.d, lambda: len(cards(self.d)) == 22, "the removed card stayed")
        self.assertIn(f"Removed {formatted(number)}.", self.d.find_element(By.ID, "add-result").text)
        self.assertEqual(self.server.api("GET", f"/v1/watches/{number}")[0], 404)
        self.assertEqual(self.browser_errors(), [])

    def test_11_the_last_list_shows_when_the_server_is_gone(self):
        self.d.get(self.server.url + "/")
        self.d.execute_async_script(
            "const done = arguments[0]; navigator.serviceWorker.ready.then(() => done(true))")
        wait(self.d, lambda: self.d.execute_script("return !!navigator.serviceWorker.controller"),
             "the service worker never took over the page")
        # Chromium's own verdict: the manifest parses and the app can be installed.
        self.assertEqual(self.d.execute_cdp_cmd("Page.getAppManifest", {}).get("errors"), [])
        self.assertEqual(self.d.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"], [])
        self.d.refresh()  # this load goes through the worker, which keeps the list
        wait(self.d, lambda: len(cards(self.d)) == 22, "the list did not load through the service worker")
        self.server.stop()
        self.d.refresh()
        wait(self.d, lambda: len(cards(self.d)) == 22, "no list once the server was gone")
        banner = self.d.find_element(By.ID, "banner")
        self.assertTrue(banner.is_displayed())
        self.assertIn("cannot be reached", banner.text)
        self.assertIn("may be out of date", banner.text)
        self.shot("list-offline", 360)


class APIKeyTests(unittest.TestCase):
    """A server whose watch list has a key: the page asks for it once, explains a wrong one, keeps a right one."""

    def test_the_page_asks_for_a_key_and_explains_a_wrong_one(self):
        server = Server()
        created = subprocess.run([BINARY, "keys", "create", "--name", "browser", "--db", server.database],
                                 capture_output=True, text=True, check=True)
        key = re.search(r"key browser: (\S+)", created.stdout).group(1)
        server.start()
        driver = chromium()
        try:
            driver.get(server.url + "/")
            wait(driver, lambda: driver.find_elements(By.ID, "key-form"), "no key was asked for")
            self.assertEqual(driver.find_elements(By.ID, "key-error"), [])
            driver.find_element(By.ID, "api-key").send_keys("kn_wrong")
            driver.find_element(By.CSS_SELECTOR, "#key-form button").click()
            wait(driver, lambda: driver.find_elements(By.ID, "key-error"), "a wrong key was not explained")
            self.assertIn("That key was not accepted", driver.find_element(By.ID, "key-error").text)
            self.assertEqual(serious_violations(driver), [])
            driver.find_element(By.ID, "api-key").send_keys(key)
            driver.find_element(By.CSS_SELECTOR, "#key-form button").click()
            wait(driver, lambda: driver.find_elements(By.ID, "add-form"), "the right key did not open the list")
            driver.refresh()
            wait(driver, lambda: driver.find_elements(By.ID, "add-form"), "the key was not kept")
            self.assertEqual(driver.execute_script("return localStorage.getItem('kuroneko.key')"), key)
        finally:
            driver.quit()
            server.stop()


def redelivery_number() -> str:
    """A number the demo's simulator shows as 持戻（ご不在） with a redelivery window asked for, for the first hour
    after the server starts: the simulator picks the journey from the first eleven digits modulo 7 (the second
    journey brings the parcel back at 22 h), and the hand-in time from 36 h before its start onwards, one minute
    per step of (digits / 7) modulo 2880; steps 60 to 780 put the parcel between 23 h and 35 h after hand-in."""
    for eleven in range(40_000_000_000, 40_000_100_000):
        if eleven % 7 == 1 and 60 <= eleven // 7 % 2880 <= 780:
            return f"{eleven}{check_digit(str(eleven))}"
    raise AssertionError("no number fits")


class RequestedWindowTests(unittest.TestCase):
    """The window the recipient asked for (お届け希望日時): after the missed delivery it is past, so the card does not
    show it as if a redelivery were booked, and the parcel page names it as asked for before the missed delivery."""

    def test_the_requested_window_is_shown(self):
        number = redelivery_number()
        server = Server().start()
        driver = chromium()
        try:
            status, _ = server.api("POST", "/v1/watches", json.dumps({"number": number}).encode())
            self.assertIn(status, (200, 201))
            watch = {}

            def checked():
                watch.update(json.loads(server.api("GET", f"/v1/watches/{number}")[1]))
                return watch.get("shipment") and watch["shipment"]["status"]["code"] != "pending"
            wait(driver, lambda _=None: checked(), "the watch was never checked", timeout=30)
            requested = watch["shipment"]["requested_delivery"]
            self.assertIsNotNone(requested, watch["shipment"]["status"])
            self.assertEqual(watch["shipment"]["status"]["code"], "attempt_failed")
            self.assertIsNone(watch["shipment"]["scheduled_delivery"])
            hours = f"{requested['window_start']}–{requested['window_end']}"
            driver.get(server.url + "/")
            # After the missed delivery: until when it is kept, on the card and first on the parcel page.
            missed = watch["missed_delivery"]
            self.assertIsNotNone(missed)
            _, month, day = (int(part) for part in missed["kept_until"].split("-"))
            kept = f"Kept until about {month}/{day}"
            wait(driver, lambda _=None: driver.find_elements(By.CSS_SELECTOR, ".card-kept"), "no keeping date on the card")
            self.assertIn(kept, driver.find_element(By.CSS_SELECTOR, ".card-kept").text)
            card_text = driver.find_element(By.CSS_SELECTOR, "#cards li").text
            self.assertNotIn("Requested", card_text, "a past request reads as a booked redelivery")
            driver.get(server.url + f"/parcel/{number}")
            wait(driver, lambda _=None: driver.find_elements(By.CSS_SELECTOR, ".facts"), "no parcel page")
            self.assertIn(kept, driver.find_element(By.ID, "next-step").text)
            self.assertIn("redelivery", driver.find_element(By.ID, "next-step").text)
            facts = driver.find_element(By.CSS_SELECTOR, ".facts").text
            self.assertIn("Requested before the missed delivery", facts)
            self.assertIn(hours, facts)
            _, calendar = server.api("GET", "/v1/calendar.ics")
            self.assertIn(b"requested", calendar.replace(b"\r\n ", b""))
        finally:
            driver.quit()
            server.stop()


class MixedCarrierTests(unittest.TestCase):
    """Numbers of all three carriers pasted together, none named: each card says its carrier, in its colour, and
    each parcel page links to its own carrier's site."""

    def test_mixed_carriers_each_find_their_carrier(self):
        # In the demo's simulator: 12 digits starting with 8 are Sagawa's, with 9 Japan Post's; 10 digits Sagawa's;
        # international numbers Japan Post's; the rest Yamato's.
        expected = {"327754459830": "yamato", "812345678900": "sagawa", "912345678904": "japanpost",
                    "1234567890": "sagawa", "EN418273650JP": "japanpost"}
        server = Server().start()
        driver = chromium()
        try:
            driver.get(server.url + "/")
            field = wait(driver, lambda _=None: driver.find_elements(By.ID, "numbers"), "no add form")[0]
            pasted = "3277-5445-9830, ８１２３４５６７８９００\n912345678904\n1234567890\nen 418 273 650 jp"
            driver.execute_script(
                "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", field, pasted)
            wait(driver, lambda _=None: driver.find_element(By.ID, "ready-count").text == "5 ready to add",
                 "the five numbers of three carriers were not all taken as valid")
            driver.find_element(By.ID, "add-button").click()

            def chips():
                return driver.execute_script("""
                    return Object.fromEntries([...document.querySelectorAll('#cards > li')].map(li =>
                        [li.dataset.number, li.querySelector('.carrier').dataset.carrier]));""")
            wait(driver, lambda _=None: chips() == expected, f"the cards never all named their carriers: {chips()}",
                 timeout=60)
            colours = driver.execute_script("""
                return [...document.querySelectorAll('#cards .carrier')].map(c => [c.dataset.carrier,
                    getComputedStyle(c).backgroundColor]);""")
            by_carrier = {carrier: colour for carrier, colour in colours}
            self.assertEqual(len(set(by_carrier.values())), 3, by_carrier)
            _, body = server.api("GET", "/v1/watches?limit=10")
            self.assertEqual({w["number"]: w["carrier"] for w in json.loads(body)["watches"]}, expected)
            driver.get(server.url + "/parcel/1234567890")
            link = wait(driver, lambda _=None: driver.find_elements(By.ID, "carrier-site"), "no link to Sagawa")[0]
            self.assertEqual(link.get_attribute("href"),
                             "https://k2k.sagawa-exp.co.jp/p/web/okurijosearch.do?okurijoNo=1234567890")
            driver.get(server.url + "/parcel/EN418273650JP")
            link = wait(driver, lambda _=None: driver.find_elements(By.ID, "carrier-site"), "no link to Japan Post")[0]
            self.assertIn("reqCodeNo1=EN418273650JP", link.get_attribute("href"))
            self.assertIn("Japan Post", driver.find_element(By.CSS_SELECTOR, ".parcel-head .carrier").text)
        finally:
            driver.quit()
            server.stop()


class CrossOriginTests(unittest.TestCase):
    """A page on another origin uses the API with a key: the preflight lets Authorization and DELETE through."""

    def test_another_origin_adds_lists_and_deletes_with_a_key(self):
        import functools
        import http.server
        import threading

        folder = tempfile.mkdtemp(prefix="kuroneko-origin-")
        with open(os.path.join(folder, "index.html"), "w") as page:
            page.write("<!doctype html><title>shop</title><p>another origin</p>")
        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

        handler = functools.partial(Quiet, directory=folder)
        origin_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=origin_server.serve_forever, daemon=True).start()
        origin = f"http://127.0.0.1:{origin_server.server_address[1]}"
        server = Server("--cors-origins", origin)
        created = subprocess.run([BINARY, "keys", "create", "--name", "shop", "--db", server.database],
                                 capture_output=True, text=True, check=True)
        key = re.search(r"key shop: (\S+)", created.stdout).group(1)
        server.start()
        driver = chromium()
        number = tracking_numbers(1, seed=7)[0]
        try:
            driver.get(origin + "/")
            steps = driver.execute_async_script("""
                const [api, key, number, done] = arguments;
                const auth = {"Authorization": "Bearer " + key};
                (async () => {
                  const added = await fetch(api + "/v1/watches", {method: "POST",
                    headers: {...auth, "Content-Type": "application/json"}, body: JSON.stringify({number})});
                  const listed = await fetch(api + "/v1/watches", {headers: {...auth, "X-Request-ID": "shop-1"}});
                  const list = await listed.json();
                  const removed = await fetch(api + "/v1/watches/" + number, {method: "DELETE", headers: auth});
                  const after = await (await fetch(api + "/v1/watches", {headers: auth})).json();
                  done({added: added.status, listed: listed.status, count: list.watches.length,
                        removed: removed.status, after: after.watches.length});
                })().catch(error => done({error: String(error)}));
            """, server.url, key, number)
            self.assertEqual(steps, {"added": 201, "listed": 200, "count": 1, "removed": 204, "after": 0})
        finally:
            driver.quit()
            server.stop()
            origin_server.shutdown()


if __name__ == "__main__":
    unittest.main(verbosity=2)
