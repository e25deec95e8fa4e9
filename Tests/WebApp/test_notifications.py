"""Notifications in a real headless Chromium against `kuroneko serve --demo`: "Notify me on this device"
asks for permission from the click and registers a web_push channel with the server's VAPID key; a change
the server finds is pushed (encrypted, signed) to a fake push service on 127.0.0.1, which decrypts it with
http_ece; that message is handed to the service worker through the DevTools protocol
(`ServiceWorker.deliverPushMessage`), which shows it as a notification tagged per parcel (a newer replaces
an older); clicking it opens the parcel's page; turning it off removes the channel. Headless Chromium
reaches no real push service, so `pushManager.subscribe` is stood in for by a subscription on the fake
service, with keys the test made. Also: what the page says where a device cannot be notified, and the
settings view (channels listed, an ntfy one added and removed, a refusal shown). Screenshots go to
$WEBAPP_OUTPUT."""

import base64
import json
import os
import sys
import time
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select

sys.path.insert(0, os.path.dirname(__file__))
from server import ROOT, Server, Simulator, chromium, screenshot, tracking_numbers  # noqa: E402

OUTPUT = os.environ.get("WEBAPP_OUTPUT", os.path.join(ROOT, ".build", "webapp-test-output"))
from push_support import CAPTURE, STUB, DevTools, FakePushService, b64url, wait  # noqa: E402


class NotificationTests(unittest.TestCase):
    """One server, one fake push service and one browser; the steps in order."""

    @classmethod
    def setUpClass(cls):
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        os.makedirs(OUTPUT, exist_ok=True)
        cls.push = FakePushService()
        cls.simulator = Simulator()
        cls.server = Server("--allow-private-webhooks", "--endpoint", f"yamato={cls.simulator.origin}/cgi-bin/tneko",
                            "--public-url", "http://kuroneko.test", demo=False).start()
        cls.browser_key = ec.generate_private_key(ec.SECP256R1())
        cls.auth = os.urandom(16)
        public = cls.browser_key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        cls.subscription = {"endpoint": cls.push.origin + "/push/device-1",
                            "keys": {"p256dh": b64url(public), "auth": b64url(cls.auth)}}
        cls.driver = chromium()
        cls.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": STUB})
        cls.driver.get(cls.server.url + "/")
        cls.driver.execute_script(
            "sessionStorage.setItem('stub.push', arguments[0]); localStorage.setItem('kuroneko.pollSeconds', '2');",
            json.dumps(cls.subscription))
        cls.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": cls.server.url, "permissions": ["notifications"]})
        cls.driver.get(cls.server.url + "/")
        cls.number = tracking_numbers(1, seed=2312)[0]

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()
        cls.simulator.stop()
        cls.push.http.shutdown()

    def setUp(self):
        self.d = self.driver

    def channels(self):
        status, body = self.server.api("GET", "/v1/channels")
        self.assertEqual(status, 200)
        return json.loads(body)["channels"]

    def decrypt(self, message):
        import http_ece

        return json.loads(http_ece.decrypt(message["body"], private_key=self.browser_key, auth_secret=self.auth,
                                           version="aes128gcm"))

    def devtools(self, target_type, prefix):
        address = self.d.capabilities["goog:chromeOptions"]["debuggerAddress"]
        return DevTools.target(address, target_type, prefix)

    def test_1_notify_me_registers_this_device(self):
        button = wait(lambda: self.d.find_elements(By.ID, "push-on"), "no Notify me button on the list")[0]
        self.assertEqual(button.text, "Notify me on this device")
        button.click()
        wait(lambda: self.d.find_elements(By.ID, "push-off"), "notifications never turned on")
        channels = self.channels()
        self.assertEqual(len(channels), 1)
        self.assertEqual(channels[0]["kind"], "web_push")
        self.assertIsNone(channels[0]["numbers"])
        self.assertEqual(channels[0]["url"], self.push.origin)  # the endpoint shown only by its origin
        _, body = self.server.api("GET", "/v1/push/vapid-key")
        server_key = base64.urlsafe_b64decode(json.loads(body)["public_key"] + "==")
        passed = bytes(json.loads(self.d.execute_script("return sessionStorage.getItem('stub.key')")))
        self.assertEqual(passed, server_key, "the page did not subscribe with the server's VAPID key")
        self.assertEqual(self.d.execute_script("return sessionStorage.getItem('stub.userVisibleOnly')"), "true")

    def test_2_a_change_is_pushed_shown_and_opens_the_parcel(self):
        status, _ = self.server.api("POST", "/v1/watches", json.dumps({"number": self.number, "label": "Boots"}).encode())
        self.assertEqual(status, 201)
        self.server.wait_for_log(rf"route=/v1/watches status=201")
        # A refresh answers once its check is recorded: the first status is known before the clock moves.
        status, body = self.server.api("POST", f"/v1/watches/{self.number}/refresh")
        self.assertEqual(status, 200)
        self.assertTrue(json.loads(body)["checked_at"])
        # Three days on, the parcel is delivered; the check asked for now finds the change.
        self.simulator.move_clock(3 * 86_400)
        asked = time.time()
        status, _ = self.server.api("POST", f"/v1/watches/{self.number}/refresh")
        self.assertIn(status, (200, 202))
        message = self.push.wait_for(1)
        # For the record (not a test of speed): from the check asked for to the push at the push service.
        print(f"\npush: arrived {1000 * (message['at'] - asked):.0f} ms after the check was asked for; "
              f"{len(message['body'])} bytes encrypted", file=sys.stderr)
        self.assertEqual(message["path"], "/push/device-1")
        self.assertEqual(message["headers"]["Content-Encoding"], "aes128gcm")
        self.assertTrue(message["headers"]["Authorization"].startswith("vapid t="))
        payload = self.decrypt(message)
        self.assertEqual(payload["number"], self.number)
        self.assertEqual(payload["tag"], f"parcel-{self.number}")
        self.assertIn("Boots", payload["title"])
        self.assertIn(payload["kind"], ("changed", "delivered", "exception"))
        self.assertEqual(payload["url"], f"http://kuroneko.test/parcel/{self.number}")
        self.assertEqual(message["headers"]["Topic"], f"parcel-{self.number}")

        page = self.devtools("page", self.server.url)
        worker = None
        try:
            page.send("ServiceWorker.enable")
            registration = page.wait_event(
                "ServiceWorker.workerRegistrationUpdated",
                lambda p: any(r["scopeURL"] == self.server.url + "/" for r in p["registrations"]))
            registration_id = next(r["registrationId"] for r in registration["registrations"]
                                   if r["scopeURL"] == self.server.url + "/")
            worker = self.devtools("service_worker", self.server.url)
            # What the worker asks the browser to show is kept as it asks (headless Chromium's own list of
            # shown notifications, getNotifications(), comes back empty in some runs).
            worker.evaluate(CAPTURE)
            shown = lambda: worker.evaluate("self.shownForTest")
            page.send("ServiceWorker.deliverPushMessage", origin=self.server.url + "/",
                      registrationId=registration_id, data=json.dumps(payload))
            wait(lambda: len(shown()) == 1, "the service worker showed no notification for the push")
            first = shown()[0]
            self.assertEqual(first["title"], payload["title"])
            self.assertEqual(first["body"], payload.get("body", ""))
            self.assertEqual(first["tag"], f"parcel-{self.number}")
            self.assertTrue(first["renotify"])
            self.assertEqual(first["data"]["number"], self.number)
            # A newer message for the same parcel carries the same tag, so it replaces the older one.
            page.send("ServiceWorker.deliverPushMessage", origin=self.server.url + "/",
                      registrationId=registration_id, data=json.dumps(dict(payload, body="newer words")))
            wait(lambda: len(shown()) == 2, "the newer message was not shown")
            self.assertEqual((shown()[1]["tag"], shown()[1]["body"]), (first["tag"], "newer words"))
            # An exception's message offers the carrier's change page as an action.
            page.send("ServiceWorker.deliverPushMessage", origin=self.server.url + "/",
                      registrationId=registration_id, data=json.dumps(dict(
                          payload, kind="exception", action_url="https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=1",
                          action_title="再配達・日時変更")))
            wait(lambda: len(shown()) == 3, "the exception was not shown")
            self.assertEqual([a["action"] for a in shown()[2]["actions"]], ["change"])
            # A click, as the browser reports it: the notificationclick event with the shown notification's
            # data (its waitUntil given the handler's promise, to wait for).
            closed = worker.evaluate("""(async () => {
                let closed = false, pending = Promise.resolve();
                const event = new Event("notificationclick");
                event.notification = {data: self.shownForTest[0].data, close() { closed = true; }};
                event.action = "";
                event.waitUntil = (promise) => { pending = promise; };
                self.dispatchEvent(event);
                await pending;
                return closed;
            })()""")
            self.assertTrue(closed, "the clicked notification was not closed")
        finally:
            page.close()
            if worker:
                worker.close()
        wait(lambda: self.d.current_url.endswith(f"/parcel/{self.number}"), "clicking did not open the parcel")
        wait(lambda: self.d.find_elements(By.ID, "timeline"), "the parcel's page did not draw")

    def test_3_the_parcel_page_says_every_parcel_is_covered_and_turning_off_removes_it(self):
        wait(lambda: self.d.find_elements(By.ID, "push-parcel"), "no notification control on the parcel page")
        self.assertIn("every parcel", self.d.find_element(By.ID, "push-parcel").text)
        self.d.execute_script("document.activeElement && document.activeElement.blur()")
        self.shot("parcel-notify", 1200)
        self.d.get(self.server.url + "/")
        wait(lambda: self.d.find_elements(By.ID, "push-off"), "the list forgot this device's channel")
        self.shot("list-notify", 360)
        self.d.find_element(By.ID, "push-off").click()
        wait(lambda: self.d.find_elements(By.ID, "push-on"), "turning off did not finish")
        self.assertEqual([c for c in self.channels() if c["ended_at"] is None], [])
        self.assertEqual(self.d.execute_script("return sessionStorage.getItem('stub.unsubscribed')"), "1")

    def test_4_one_parcel_only(self):
        self.d.get(self.server.url + f"/parcel/{self.number}")
        button = wait(lambda: self.d.find_elements(By.ID, "push-on"), "no button on the parcel page")[0]
        self.assertEqual(button.text, "Notify me on this device about this parcel")
        button.click()
        wait(lambda: self.d.find_elements(By.ID, "push-off"), "the parcel's notifications never turned on")
        channel = self.channels()[-1]
        self.assertEqual(channel["numbers"], [self.number])
        self.d.find_element(By.ID, "push-off").click()
        wait(lambda: self.d.find_elements(By.ID, "push-on"), "turning off did not finish")

    def test_5_a_device_that_cannot_is_told_why(self):
        self.d.execute_script("sessionStorage.setItem('stub.push', JSON.stringify({absent: true}))")
        self.d.get(self.server.url + "/")
        note = wait(lambda: self.d.find_elements(By.ID, "push-unsupported"), "no word on a browser without push")[0]
        self.assertIn("cannot show notifications", note.text)
        self.d.execute_cdp_cmd("Emulation.setUserAgentOverride", {
            "userAgent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
                         "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"})
        try:
            self.d.get(self.server.url + "/")
            note = wait(lambda: self.d.find_elements(By.ID, "push-unsupported"), "no word for an iPhone")[0]
            self.assertIn("Home Screen", note.text)
        finally:
            self.d.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": ""})
            self.d.execute_script("sessionStorage.setItem('stub.push', arguments[0])", json.dumps(self.subscription))

    def test_6_the_settings_view_lists_adds_and_removes_channels(self):
        self.d.get(self.server.url + "/")
        wait(lambda: self.d.find_elements(By.ID, "settings-link"), "no link to the settings")[0].click()
        wait(lambda: self.d.find_elements(By.ID, "channel-form"), "the settings view did not open")
        self.assertTrue(self.d.current_url.endswith("/settings"))
        # The form offers the kinds the server describes, once it has said which.
        wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#channel-kind option[value=ntfy]"), "ntfy is not offered")
        Select(self.d.find_element(By.ID, "channel-kind")).select_by_value("ntfy")
        self.d.find_element(By.ID, "channel-field-url").send_keys("ftp://example.com/x")
        self.d.find_element(By.ID, "channel-add").click()
        refusal = wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#channel-result .error"), "no refusal")[0]
        self.assertIn("url", refusal.text)
        address = self.d.find_element(By.ID, "channel-field-url")
        address.clear()
        address.send_keys(self.push.origin + "/my-parcels")
        self.d.find_element(By.ID, "channel-quiet").send_keys("22:00-07:00")
        self.d.find_element(By.ID, "channel-add").click()
        wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#channels li[data-kind=ntfy]"), "the ntfy channel is not listed")
        listed = [c for c in self.channels() if c["kind"] == "ntfy"]
        self.assertEqual(len(listed), 1)
        self.assertEqual(listed[0]["quiet_hours"], "22:00-07:00")
        self.assertIn(listed[0]["url"], self.d.find_element(By.ID, "channels").text)
        from test_webapp import serious_violations

        self.assertEqual(serious_violations(self.d), [])
        self.d.execute_script("document.activeElement && document.activeElement.blur()")
        self.shot("settings", 1200)
        Select(self.d.find_element(By.ID, "lang")).select_by_value("ja")
        wait(lambda: self.d.find_element(By.TAG_NAME, "h1").text == "通知", "the settings are not in Japanese")
        self.shot("settings-ja", 360)
        Select(self.d.find_element(By.ID, "lang")).select_by_value("en")
        wait(lambda: self.d.find_element(By.TAG_NAME, "h1").text == "Notifications", "not back in English")
        # The view is drawn again in the language chosen: its list comes back when the server has answered (a
        # button found while it is drawn may be gone when pressed; the wait tries again).
        def remove():
            buttons = self.d.find_elements(By.CSS_SELECTOR, "#channels li[data-kind=ntfy] button")
            if buttons:
                buttons[0].click()
            return bool(buttons)

        wait(remove, "the channel is not listed again in English")
        wait(lambda: not self.d.find_elements(By.CSS_SELECTOR, "#channels li[data-kind=ntfy]"), "the channel stayed")
        self.assertEqual([c for c in self.channels() if c["kind"] == "ntfy"], [])
        self.assertEqual([e["message"] for e in self.d.get_log("browser") if e["level"] == "SEVERE"
                          and "/v1/channels - Failed to load resource" not in e["message"]], [])

    def test_7_a_line_channel_takes_its_token_and_recipient_and_never_shows_the_token(self):
        self.d.get(self.server.url + "/settings")
        wait(lambda: self.d.find_elements(By.ID, "channel-form"), "the settings view did not open")
        wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#channel-kind option[value=line]"), "LINE is not offered")
        Select(self.d.find_element(By.ID, "channel-kind")).select_by_value("line")
        self.assertEqual(self.d.find_elements(By.ID, "channel-field-url"), [], "LINE takes no URL")
        # Its fields as the server describes them: the token typed hidden.
        self.assertEqual(self.d.find_element(By.ID, "channel-field-access_token").get_attribute("type"), "password")
        token = "line-token-" + "x" * 40
        self.d.find_element(By.ID, "channel-field-access_token").send_keys(token)
        self.d.find_element(By.ID, "channel-field-to").send_keys("@not-an-id")
        self.d.find_element(By.ID, "channel-add").click()
        refusal = wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#channel-result .error"), "no refusal")[0]
        self.assertIn("LINE", refusal.text)
        recipient = self.d.find_element(By.ID, "channel-field-to")
        recipient.clear()
        recipient.send_keys("U" + "0123456789abcdef" * 2)
        self.d.find_element(By.ID, "channel-field-access_token").send_keys(token)
        self.d.find_element(By.ID, "channel-add").click()
        wait(lambda: self.d.find_elements(By.CSS_SELECTOR, "#channels li[data-kind=line]"), "the LINE channel is not listed")
        listed = [c for c in self.channels() if c["kind"] == "line"]
        self.assertEqual(len(listed), 1)
        self.assertEqual(listed[0]["url"], "U0123…")
        self.assertNotIn(token, self.d.page_source)
        self.assertNotIn(token, json.dumps(listed))
        self.d.find_element(By.CSS_SELECTOR, "#channels li[data-kind=line] button").click()
        wait(lambda: not self.d.find_elements(By.CSS_SELECTOR, "#channels li[data-kind=line]"), "the channel stayed")

    def shot(self, name, width):
        screenshot(self, self.d, OUTPUT, name, width)


if __name__ == "__main__":
    unittest.main(verbosity=2)
