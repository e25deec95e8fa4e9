"""A household signs in, in headless Chromium at phone width in Japanese against `kuroneko serve --demo`: the first
account (made by `kuroneko users add`) signs in on its phone and sees the list; it invites a second member, who
joins from the link on another phone (a new account) and sees the same list; a parcel the first removes leaves the
second's list; a viewer's phone cannot change anything (403 with its reason); the list is nobody's without
signing in; axe finds nothing serious."""

import json
import os
import re
import subprocess
import sys
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.dirname(__file__))
from server import BINARY, BrowserTestCase, ROOT, Server, phone_in_japanese, screenshot, tracking_numbers  # noqa: E402
from test_list_at_scale import wait  # noqa: E402
from test_webapp import serious_violations, snapshot  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))

# fetch() from the page, as the signed-in browser (its cookie, its CSRF token): status and JSON.
CALL = """
const [method, path, body, done] = arguments;
const headers = {"Content-Type": "application/json", "X-CSRF-Token": sessionStorage.getItem("kuroneko.csrf") || ""};
fetch(path, {method, headers, body: body === null ? undefined : JSON.stringify(body)})
  .then(async (r) => done([r.status, r.status === 204 ? null : await r.json().catch(() => null)]))
  .catch((e) => done([0, String(e)]));
"""


def call(driver, method, path, body=None):
    return driver.execute_async_script(CALL, method, path, body)


def sign_in(driver, url, name, password):
    driver.get(url + "/")
    wait(lambda: driver.find_elements(By.ID, "signin-form"), "no sign-in form")
    driver.find_element(By.ID, "signin-name").send_keys(name)
    driver.find_element(By.ID, "signin-password").send_keys(password)
    driver.find_element(By.ID, "signin-submit").click()


def card_numbers(driver):
    return driver.execute_script("return [...document.querySelectorAll('#cards > li')].map(li => li.dataset.number)")


class HouseholdTests(BrowserTestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        cls.server = Server()
        made = subprocess.run([BINARY, "users", "add", "mama", "--db", cls.server.database], input="mama-password\n",
                              capture_output=True, text=True, timeout=60)
        assert made.returncode == 0, made.stderr
        cls.server.start()
        cls.driver = phone_in_japanese(cls.server)
        cls.second = None

    @classmethod
    def tearDownClass(cls):
        if cls.second:
            cls.second.quit()
        super().tearDownClass()

    def test_1_nobody_without_signing_in(self):
        status, body = self.server.api("GET", "/v1/watches")
        self.assertEqual(status, 401, body)
        self.assertTrue(json.loads(body)["detail"].startswith("sign in first"))

    def test_2_mama_signs_in_and_invites(self):
        sign_in(self.d, self.server.url, "mama", "wrong-password")
        wait(lambda: "違います" in self.d.find_element(By.ID, "signin-result").text, "a wrong password was not said")
        self.d.find_element(By.ID, "signin-password").clear()
        self.d.find_element(By.ID, "signin-password").send_keys("mama-password")
        self.d.find_element(By.ID, "signin-submit").click()
        wait(lambda: self.d.find_elements(By.ID, "numbers"), "the list did not open after signing in")
        numbers = tracking_numbers(2, seed=4701)
        for number in numbers:
            status, _ = call(self.d, "POST", "/v1/watches", {"number": number})
            self.assertEqual(status, 201)
        self.d.get(self.server.url + "/")
        wait(lambda: sorted(card_numbers(self.d)) == sorted(numbers), "mama's list does not show her parcels")
        # One word for one meaning: 配達中 is a parcel out for delivery; the filter of parcels still followed is 追跡中.
        filters = self.d.execute_script("return [...document.querySelectorAll('.filters label')].map(e => e.textContent.trim())")
        self.assertEqual(filters, ["すべて", "追跡中", "完了"])
        self.assertEqual(serious_violations(self.d), [])
        type(self).invitation = invite_from_people_page(self, self.d, "staff")
        type(self).numbers = numbers

    def test_3_papa_joins_and_sees_the_same_list(self):
        second = phone_in_japanese(self.server)
        type(self).second = second
        second.get(self.server.url + self.invitation)
        wait(lambda: second.find_elements(By.ID, "join-form"), "no join form")
        second.find_element(By.ID, "join-name").send_keys("papa")
        second.find_element(By.ID, "join-display").send_keys("パパ")
        second.find_element(By.ID, "join-password").send_keys("papa-password")
        second.find_element(By.ID, "join-submit").click()
        wait(lambda: sorted(card_numbers(second)) == sorted(self.numbers), "papa does not see the household's list")
        # The carriers were refused before papa signed in; once the list is read they are asked again and named.
        chips = lambda: second.execute_script("return [...document.querySelectorAll('.card .carrier')].map(e => e.innerText)")
        wait(lambda: chips() and not any(re.fullmatch(r"[a-z]+", chip) for chip in chips()),
             lambda: f"the carriers are shown by their ids: {chips()}")
        screenshot(self, second, OUTPUT, "household-joined-ja", 360)
        # The link works once.
        status, body = self.server.api("POST", "/v1/invitations/accept", json.dumps(
            {"token": self.invitation.split("#")[1], "name": "someone", "password": "someone-password"}).encode())
        self.assertEqual(status, 410, body)

    def test_3b_papas_own_channel_starts_with_what_needs_him(self):
        """A member's channel form ticks what needs them (a problem, a missed delivery's last day, a stalled or late
        parcel), not every change of every parcel of the household."""
        self.second.get(self.server.url + "/settings")
        ticked = lambda: self.second.execute_script(
            "return [...document.querySelectorAll('#channel-form input[name=kinds]')].filter(b => b.checked).map(b => b.value)")
        wait(lambda: sorted(ticked()) == ["exception", "kept_reminder", "overdue", "stalled"],
             lambda: f"papa's channel would hear {ticked()}")
        self.assertNotIn("changed", ticked())
        # A staff member's people page has no invitation form or log, and no "null" where they would be.
        self.second.get(self.server.url + "/people")
        wait(lambda: snapshot(self.second, "#people-members"), "papa's people page shows no members")
        self.assertNotIn("null", snapshot(self.second, "#people"))
        self.second.get(self.server.url + "/")

    def test_4_a_removal_shows_on_the_other_phone(self):
        status, _ = call(self.d, "DELETE", f"/v1/watches/{self.numbers[0]}")
        self.assertEqual(status, 204)
        wait(lambda: card_numbers(self.second) == [self.numbers[1]], "papa's list still shows the removed parcel")

    def test_5_a_viewer_changes_nothing(self):
        path = invite_from_people_page(self, self.d, "viewer")
        third = phone_in_japanese(self.server)
        try:
            third.get(self.server.url + path)
            wait(lambda: third.find_elements(By.ID, "join-form"), "no join form")
            third.find_element(By.ID, "join-name").send_keys("kid")
            third.find_element(By.ID, "join-password").send_keys("kid-password")
            third.find_element(By.ID, "join-submit").click()
            wait(lambda: card_numbers(third) == [self.numbers[1]], "the viewer does not see the list")
            status, body = call(third, "DELETE", f"/v1/watches/{self.numbers[1]}")
            self.assertEqual((status, body["reason"]), (403, "viewer_only"))
            # The viewer's settings show the members, but nothing to invite, take out or audit.
            third.get(self.server.url + "/people")
            wait(lambda: third.find_elements(By.CSS_SELECTOR, "#people:not([hidden]) #people-members li"), "no members shown")
            self.assertEqual(third.find_elements(By.ID, "people-invite-form"), [])
            self.assertEqual(third.find_elements(By.CSS_SELECTOR, "[data-remove-member]"), [])
            self.assertEqual(third.find_elements(By.ID, "people-audit"), [])
            type(self).kid_session = third.get_cookie("kuroneko_session")["value"]
        finally:
            third.quit()

    def test_6_the_admin_takes_a_member_out_and_reads_who_did_what(self):
        # The people have a page of their own, linked from the notifications page (which holds none of them).
        self.d.get(self.server.url + "/settings")
        wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#people-page-link a[href='/people']"), "no link to the people page")
        self.assertEqual(self.d.find_elements(By.ID, "people-members"), [], "members on the notifications page")
        self.d.find_element(By.CSS_SELECTOR, "#people-page-link a").click()
        wait(lambda: len(self.d.find_elements(By.CSS_SELECTOR, "#people-members li")) == 3, "three members not shown")
        self.assertEqual(self.d.find_element(By.TAG_NAME, "h1").text, "メンバー")
        self.assertIn("メンバー", self.d.title)
        # Each member by the name they chose (papa's, given when joining), and each role explained in a line.
        members = self.d.find_element(By.ID, "people-members").text
        self.assertIn("パパ", members)
        self.assertIn("（papa）", members)
        roles = self.d.find_elements(By.CSS_SELECTOR, "#people-roles dd")
        self.assertEqual(len(roles), 3)
        self.assertTrue(all(len(role.text) > 10 for role in roles), [role.text for role in roles])
        self.assertIn("変更はできません", self.d.find_element(By.ID, "people-roles").text)
        self.assertIn("mama", self.d.find_element(By.ID, "people-me").text)
        log = self.d.find_element(By.ID, "people-audit").text
        for words in ["招待", "参加", "削除", "papa"]:
            self.assertIn(words, log)
        self.d.execute_script("window.confirm = () => true;")
        self.d.find_element(By.CSS_SELECTOR, "[data-remove-member='kid']").click()
        wait(lambda: len(self.d.find_elements(By.CSS_SELECTOR, "#people-members li")) == 2, "kid is still a member")
        wait(lambda: "メンバーを外した" in self.d.find_element(By.ID, "people-audit").text, "the removal is not in the log")
        status, _ = self.server.api("GET", "/v1/watches", headers={"Cookie": f"kuroneko_session={self.kid_session}"})
        self.assertEqual(status, 401, "the member taken out is still signed in")
        self.assertEqual(serious_violations(self.d), [])
        screenshot(self, self.d, OUTPUT, "household-people-ja", 360)

    def test_7_papa_signs_out(self):
        self.second.get(self.server.url + "/people")
        wait(lambda: self.second.find_elements(By.ID, "people-signout"), "no sign-out button")
        self.second.find_element(By.ID, "people-signout").click()
        wait(lambda: self.second.find_elements(By.ID, "signin-form"), "signing out did not lead to the sign-in form")
        status, _ = call(self.second, "GET", "/v1/watches")
        self.assertEqual(status, 401)


def invite_from_people_page(test, driver, role):
    """Makes an invitation link with the people page's form, as an admin would; its path."""
    driver.get(test.server.url + "/people")
    wait(lambda: driver.find_elements(By.ID, "people-invite-form"), "no invitation form for the admin")
    Select(driver.find_element(By.ID, "people-invite-role")).select_by_value(role)
    driver.find_element(By.ID, "people-invite").click()
    wait(lambda: driver.find_elements(By.ID, "people-invite-link"), "no invitation link")
    link = driver.find_element(By.ID, "people-invite-link").get_attribute("value")
    test.assertTrue(link.startswith(test.server.url + "/join#inv_"), link)
    return link[len(test.server.url):]


if __name__ == "__main__":
    unittest.main(verbosity=2)
