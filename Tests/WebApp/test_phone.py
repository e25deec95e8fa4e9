"""The phone at home, in headless Chromium at 360×800 in Japanese. `kuroneko serve --tls-cert --tls-key` with a
certificate for `kuroneko.home` from an authority this test makes (Chromium trusts that certificate by its key,
`--ignore-certificate-errors-spki-list`, and resolves the name to 127.0.0.1): the page is a secure context over
https, "通知する" subscribes (through the stand-in for the browser's push service), a change the server finds is
pushed to a fake push service and shown by the service worker. Screenshots of the list with a 不在 card, its parcel
page and the settings at 360 px go to docs/screenshots/. A second, plain server (no SMTP, private addresses
refused) shows: no "null" anywhere, a refused ntfy URL explained in Japanese naming the setting, e-mail not
offered, and the subscribe timeout's message; axe finds nothing serious."""

import base64
import datetime
import hashlib
import json
import os
import shutil
import sys
import tempfile
import unittest

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select

sys.path.insert(0, os.path.dirname(__file__))
from push_support import STUB, FakePushService, b64url, deliver_push, wait  # noqa: E402
from server import BrowserTestCase, ROOT, Server, Simulator, chromium, phone_in_japanese, screenshot, tracking_numbers  # noqa: E402
from test_webapp import redelivery_number, serious_violations, snapshot  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))
SCREENSHOTS = os.path.join(ROOT, "docs", "screenshots")
HOST = "kuroneko.home"


def certificate_pair(folder: str):
    """An authority and a certificate it signed for HOST; the files, and the certificate's SPKI pin."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Kuroneko phone test authority")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    import ipaddress
    leaf = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = {}
    for name, data in [("ca.pem", ca.public_bytes(serialization.Encoding.PEM)),
                       ("cert.pem", leaf.public_bytes(serialization.Encoding.PEM)),
                       ("key.pem", key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                     serialization.NoEncryption()))]:
        paths[name] = os.path.join(folder, name)
        with open(paths[name], "wb") as file:
            file.write(data)
    spki = leaf.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    pin = base64.b64encode(hashlib.sha256(spki).digest()).decode()
    return paths, pin


class PhoneOverHTTPSTests(unittest.TestCase):
    """One https server asking a simulator, one fake push service, one phone-sized browser; steps in order."""

    @classmethod
    def setUpClass(cls):
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        os.makedirs(OUTPUT, exist_ok=True)
        cls.folder = tempfile.mkdtemp(prefix="kuroneko-phone-")
        files, pin = certificate_pair(cls.folder)
        cls.push = FakePushService()
        cls.simulator = Simulator()
        cls.server = Server("--allow-private-webhooks", "--endpoint", f"yamato={cls.simulator.origin}/cgi-bin/tneko",
                            "--tls-cert", files["cert.pem"], "--tls-key", files["key.pem"], demo=False,
                            ca_file=files["ca.pem"]).start()
        assert cls.server.url.startswith("https://"), cls.server.url
        cls.origin = f"https://{HOST}:{cls.server.url.rsplit(':', 1)[1]}"
        cls.browser_key = ec.generate_private_key(ec.SECP256R1())
        cls.auth = os.urandom(16)
        public = cls.browser_key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        cls.subscription = {"endpoint": cls.push.origin + "/push/phone",
                            "keys": {"p256dh": b64url(public), "auth": b64url(cls.auth)}}
        cls.driver = chromium(360, 800, "ja", (f"--host-resolver-rules=MAP {HOST} 127.0.0.1",
                                               f"--ignore-certificate-errors-spki-list={pin}"))
        cls.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 360, "height": 800, "deviceScaleFactor": 1, "mobile": True})
        cls.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": STUB})
        cls.driver.get(cls.origin + "/")
        cls.driver.execute_script("sessionStorage.setItem('stub.push', arguments[0]);"
                                  "localStorage.setItem('kuroneko.pollSeconds', '2');"
                                  "localStorage.setItem('kuroneko.lang', 'ja');", json.dumps(cls.subscription))
        cls.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": cls.origin, "permissions": ["notifications"]})
        cls.absent = redelivery_number()
        cls.moving = tracking_numbers(1, seed=2312)[0]

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()
        cls.simulator.stop()
        cls.push.http.shutdown()
        shutil.rmtree(cls.folder, ignore_errors=True)

    def setUp(self):
        self.d = self.driver

    def body_text(self):
        return self.d.find_element(By.TAG_NAME, "body").text

    def test_1_over_https_the_phone_subscribes(self):
        self.d.get(self.origin + "/")
        self.assertTrue(self.d.execute_script("return window.isSecureContext"), "https is not a secure context here")
        button = wait(lambda: self.d.find_elements(By.ID, "push-on"), "no 通知する button")[0]
        self.assertNotIn("null", self.body_text())
        button.click()
        wait(lambda: self.d.find_elements(By.ID, "push-off"), "notifications never turned on")
        self.assertNotIn("null", self.body_text())
        status, body = self.server.api("GET", "/v1/channels")
        self.assertEqual(status, 200)
        channels = json.loads(body)["channels"]
        self.assertEqual([c["kind"] for c in channels], ["web_push"])

    def test_2_the_list_and_a_parcel_that_needs_you_at_360_px(self):
        for number, label in [(self.absent, "絵本"), (self.moving, "靴")]:
            status, _ = self.server.api("POST", "/v1/watches", json.dumps({"number": number, "label": label}).encode())
            self.assertEqual(status, 201)
            status, body = self.server.api("POST", f"/v1/watches/{number}/refresh")
            self.assertEqual(status, 200, body)
        self.d.get(self.origin + "/")
        action = wait(lambda: snapshot(self.d, f"#cards li[data-number='{self.absent}'] .card-action a"),
                      "the card of the parcel brought back offers no action")
        self.assertIn("変更", action)
        # The list comes first: the first card starts on the first screen, the tools folded behind one control.
        first_top = self.d.execute_script(
            "return document.querySelector('#cards li').getBoundingClientRect().top - window.scrollY")
        self.assertLess(first_top, self.d.execute_script("return window.innerHeight"),
                        f"the first card starts at {first_top} px, below the first screen")
        self.assertFalse(self.d.find_element(By.ID, "download").is_displayed(), "the tools are not folded away")
        # Nothing covers the badge: the selection box and the badge do not overlap.
        overlap = snapshot(self.d, f"#cards li[data-number='{self.absent}']", """
            const a = e.querySelector('.badge').getBoundingClientRect();
            const b = e.querySelector('.select').getBoundingClientRect();
            return !(a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top);""")
        self.assertFalse(overlap, "the selection box covers the badge")
        self.assertNotIn("null", self.body_text())
        self.assertEqual(serious_violations(self.d), [])
        self.shot("phone-list-ja", whole=True)
        self.d.get(self.origin + f"/parcel/{self.absent}")
        link = wait(lambda: self.d.find_elements(By.ID, "change-delivery"), "no change link on the parcel page")[0]
        top = self.d.execute_script("return arguments[0].getBoundingClientRect().bottom", link)
        self.assertLessEqual(top, 800, "the change link is below the fold")
        self.assertNotIn("null", self.body_text())
        self.assertEqual(serious_violations(self.d), [])
        self.shot("phone-absent-ja")

    def test_3_a_change_reaches_the_phone(self):
        self.simulator.move_clock(3 * 86_400)
        before = len(self.push.messages)
        status, _ = self.server.api("POST", f"/v1/watches/{self.moving}/refresh")
        self.assertIn(status, (200, 202))
        import http_ece

        # Both parcels moved on; the one asked about is among the first messages to arrive.
        payload = None
        for count in range(before + 1, before + 4):
            message = self.push.wait_for(count)
            decrypted = json.loads(http_ece.decrypt(message["body"], private_key=self.browser_key,
                                                    auth_secret=self.auth, version="aes128gcm"))
            if decrypted["number"] == self.moving:
                payload = decrypted
                break
        self.assertIsNotNone(payload, "no push for the parcel that moved")
        self.assertIn("靴", payload["title"])
        # The parcel's change log reads from → to.
        self.d.get(self.origin + f"/parcel/{self.moving}")
        log = wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#changes li"), "no change in the parcel's log")
        self.assertIn(" → ", log[0].text, log[0].text)
        self.assertNotIn("最初の状態", log[0].text)
        self.d.get(self.origin + "/")
        wait(lambda: self.d.find_elements(By.ID, "cards"), "the list did not draw")
        shown = deliver_push(self.d, self.origin, payload)
        self.assertEqual(shown[0]["title"], payload["title"])
        self.assertEqual(shown[0]["tag"], f"parcel-{self.moving}")

    def test_4_the_settings_at_360_px(self):
        self.d.get(self.origin + "/settings")
        wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#channels li"), "the settings listed no channel")
        labels = self.d.execute_script("""
            return [...document.querySelectorAll('#channel-form label.check')].map(l => l.getBoundingClientRect().height);""")
        self.assertTrue(labels and max(labels) < 40, f"a checkbox label wraps: heights {labels}")
        self.assertNotIn("null", self.body_text())
        self.assertEqual(serious_violations(self.d), [])
        self.shot("phone-settings-ja", whole=True)

    def test_5_the_webhook_is_changed_in_place_and_english_marks_the_carriers_japanese(self):
        self.d.get(self.origin + f"/parcel/{self.absent}")
        field = wait(lambda: self.d.find_elements(By.ID, "parcel-webhook-url"), "no webhook field on the parcel page")[0]
        field.clear()
        field.send_keys("http://127.0.0.1:9/hook")
        self.d.find_element(By.ID, "webhook-save").click()
        secret = wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#webhook-result .secret"), "no secret shown")[0]
        self.assertIn("whsec_", secret.text)
        watch = json.loads(self.server.api("GET", f"/v1/watches/{self.absent}")[1])
        self.assertEqual(watch["webhook_url"], "http://127.0.0.1:9/hook")
        self.d.find_element(By.ID, "webhook-clear").click()
        wait(lambda: "外しました" in self.d.find_element(By.ID, "webhook-result").text, "the webhook was not removed")
        self.assertIsNone(json.loads(self.server.api("GET", f"/v1/watches/{self.absent}")[1])["webhook_url"])
        self.d.execute_script("localStorage.setItem('kuroneko.lang', 'en')")
        try:
            self.d.get(self.origin + f"/parcel/{self.absent}")
            marked = wait(lambda: self.d.find_elements(By.CSS_SELECTOR, ".facts [lang=ja]"), "no text marked Japanese")
            self.assertTrue(any("ご不在" in span.text for span in marked), [span.text for span in marked])
            self.assertIn("in Japanese", self.d.find_element(By.CSS_SELECTOR, ".facts").text)
        finally:
            self.d.execute_script("localStorage.setItem('kuroneko.lang', 'ja')")

    def shot(self, name, whole=False):
        screenshot(self, self.d, OUTPUT, name, 360, whole)
        # The phone-sized window is the test's: back to it after the screenshot cleared the override.
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 360, "height": 800, "deviceScaleFactor": 1, "mobile": True})
        if os.environ.get("KURONEKO_SCREENSHOTS") == "1":
            shutil.copyfile(os.path.join(OUTPUT, f"{name}-360.png"), os.path.join(SCREENSHOTS, f"{name}-360.png"))


class RefusalsInJapaneseTests(BrowserTestCase):
    """A plain server with no SMTP that refuses private addresses, in Japanese."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server().start()
        cls.driver = phone_in_japanese(cls.server, STUB)

    def test_a_refused_ntfy_url_is_explained_and_email_is_not_offered(self):
        self.d.get(self.server.url + "/settings")
        wait(lambda: self.d.find_elements(By.ID, "channel-form"), "no settings form")
        kinds = lambda: [o.get_attribute("value") for o in Select(self.d.find_element(By.ID, "channel-kind")).options]
        wait(lambda: "ntfy" in kinds(), f"the kinds the server describes are not offered: {kinds()}")
        self.assertNotIn("email", kinds(), "e-mail is offered by a server without SMTP")
        Select(self.d.find_element(By.ID, "channel-kind")).select_by_value("ntfy")
        self.d.find_element(By.ID, "channel-field-url").send_keys("http://127.0.0.1:9/home-ntfy")
        self.d.find_element(By.ID, "channel-add").click()
        refusal = wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#channel-result .error"), "no refusal")[0].text
        self.assertIn("KURONEKO_ALLOW_PRIVATE_WEBHOOKS=1", refusal)
        self.assertIn("ネットワーク内", refusal)
        self.assertNotIn("入力を確かめて", refusal)
        self.assertNotIn("null", self.d.find_element(By.TAG_NAME, "body").text)
        self.assertEqual(serious_violations(self.d), [])

    def test_the_demos_empty_list_offers_a_number_of_each_carrier(self):
        self.d.get(self.server.url + "/")
        offer = wait(lambda: self.d.find_elements(By.ID, "demo-numbers"), "the empty demo list offers nothing")[0]
        text = self.d.find_element(By.ID, "empty").text
        for words in ["ヤマト運輸", "佐川急便", "日本郵便", "3277-5445-9830"]:
            self.assertIn(words, text)
        offer.click()
        field = self.d.find_element(By.ID, "numbers")
        self.assertEqual(len(field.get_attribute("value").split("\n")), 3)

    def test_a_subscription_that_never_answers_is_given_up_with_a_message(self):
        self.d.get(self.server.url + "/")
        self.d.execute_script("sessionStorage.setItem('stub.push', JSON.stringify({hang: true}));"
                              "localStorage.setItem('kuroneko.subscribeSeconds', '2')")
        self.d.execute_cdp_cmd("Browser.grantPermissions", {"origin": self.server.url, "permissions": ["notifications"]})
        self.d.get(self.server.url + "/")
        try:
            button = wait(lambda: self.d.find_elements(By.ID, "push-on"), "no 通知する button")[0]
            self.assertNotIn("null", self.d.find_element(By.ID, "push-all").text)
            button.click()
            working = wait(lambda: self.d.find_elements(By.ID, "push-working"), "no sign of the work going on")[0]
            self.assertIn("設定しています", working.text)
            note = wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#push-all .push-note.error"), "no timeout message",
                        timeout=15)[0]
            self.assertIn("2秒", note.text)
            self.assertTrue(self.d.find_element(By.ID, "push-on").is_enabled(), "the button stays disabled")
        finally:
            self.d.execute_script("localStorage.removeItem('kuroneko.subscribeSeconds');"
                                  "sessionStorage.removeItem('stub.push')")


if __name__ == "__main__":
    unittest.main(verbosity=2)
