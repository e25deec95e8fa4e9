"""Passkeys in headless Chromium at phone width in Japanese, with Chromium's virtual authenticator (CTAP2, a
discoverable credential, the user verified): a signed-in member makes a passkey on the people page (/people), signs out,
and signs in again with the passkey alone, no name typed; the passkey is listed, then removed, after which it signs
nobody in. The page is opened as http://localhost (WebAuthn needs a domain, not an address)."""

import json
import os
import subprocess
import sys
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions

sys.path.insert(0, os.path.dirname(__file__))
from server import BINARY, BrowserTestCase, ROOT, Server, phone_in_japanese, screenshot  # noqa: E402
from test_household import call, sign_in  # noqa: E402
from test_list_at_scale import wait  # noqa: E402
from test_webapp import serious_violations  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))


class PasskeyTests(BrowserTestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUTPUT, exist_ok=True)
        cls.server = Server()
        made = subprocess.run([BINARY, "users", "add", "mama", "--db", cls.server.database], input="mama-password\n",
                              capture_output=True, text=True, timeout=60)
        assert made.returncode == 0, made.stderr
        cls.server.start()
        cls.driver = phone_in_japanese(cls.server)
        options = VirtualAuthenticatorOptions()
        options.protocol = Protocol.CTAP2
        options.transport = Transport.INTERNAL
        options.has_resident_key = True
        options.has_user_verification = True
        options.is_user_verified = True
        options.is_user_consenting = True
        cls.driver.add_virtual_authenticator(options)
        cls.site = cls.server.url.replace("127.0.0.1", "localhost")

    def test_1_make_a_passkey_then_sign_in_with_it_alone(self):
        sign_in(self.d, self.site, "mama", "mama-password")
        wait(lambda: self.d.find_elements(By.ID, "numbers"), "the list did not open after signing in")
        self.d.get(self.site + "/people")
        wait(lambda: self.d.find_elements(By.ID, "passkey-add"), "no button to make a passkey")
        self.d.find_element(By.ID, "passkey-add").click()
        wait(lambda: len(self.d.find_elements(By.CSS_SELECTOR, "#passkeys li")) == 1,
             lambda: "no passkey listed: " + self.d.find_element(By.ID, "passkey-result").text)
        self.assertIn("パスキーを作りました", self.d.find_element(By.ID, "passkey-result").text)
        self.assertEqual(len(self.d.get_credentials()), 1)
        self.assertEqual(serious_violations(self.d), [])
        screenshot(self, self.d, OUTPUT, "passkeys-ja", 360)
        self.d.find_element(By.ID, "people-signout").click()
        wait(lambda: self.d.find_elements(By.ID, "signin-passkey"), "the sign-in form offers no passkey")
        self.d.find_element(By.ID, "signin-passkey").click()
        wait(lambda: self.d.find_elements(By.ID, "numbers"), "the passkey did not sign in")
        status, session = call(self.d, "GET", "/v1/session")
        self.assertEqual((status, session["name"]), (200, "mama"))

    def test_2_a_removed_passkey_signs_nobody_in(self):
        self.d.get(self.site + "/people")
        wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#passkeys li [data-passkey]"), "the passkey is not listed")
        self.d.find_element(By.CSS_SELECTOR, "#passkeys li [data-passkey]").click()
        wait(lambda: not self.d.find_elements(By.CSS_SELECTOR, "#passkeys li"), "the passkey was not removed")
        self.d.find_element(By.ID, "people-signout").click()
        wait(lambda: self.d.find_elements(By.ID, "signin-passkey"), "no sign-in form after signing out")
        self.d.find_element(By.ID, "signin-passkey").click()
        wait(lambda: self.d.find_element(By.ID, "signin-result").text.strip(), "the refusal is not said")
        self.assertEqual(self.d.find_elements(By.ID, "numbers"), [])
        status, _ = call(self.d, "GET", "/v1/watches")
        self.assertEqual(status, 401)


if __name__ == "__main__":
    unittest.main(verbosity=2)
