"""What the notification tests share: a fake push service on 127.0.0.1, a raw DevTools connection (for the
service worker's events), the stand-in for the browser's push service, and a push handed to the page's service
worker with what it then shows."""

import base64
import http.server
import json
import threading
import time
import urllib.request

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 30


def wait(condition, message, timeout=WAIT):
    # The page redraws as it polls: an element found a moment ago may be gone when it is read.
    return WebDriverWait(None, timeout, poll_frequency=0.05,
                         ignored_exceptions=[StaleElementReferenceException]).until(lambda _: condition(), message)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class FakePushService:
    """A push service on 127.0.0.1: keeps every message it is sent (headers, body, arrival time), answers 201."""

    def __init__(self):
        self.messages = []
        self.changed = threading.Condition()
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with service.changed:
                    service.messages.append({"path": self.path, "headers": dict(self.headers), "body": body,
                                             "at": time.time()})
                    service.changed.notify_all()
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *arguments):
                pass

        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def wait_for(self, count, timeout=WAIT):
        deadline = time.monotonic() + timeout
        with self.changed:
            while len(self.messages) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the fake push service had {len(self.messages)} messages, not {count}")
                self.changed.wait(left)
            return self.messages[count - 1]


class DevTools:
    """One raw DevTools connection to a target (for events, which selenium's execute_cdp_cmd cannot wait for)."""

    def __init__(self, socket_url: str):
        import websocket  # websocket-client, which selenium depends on

        self.socket = websocket.create_connection(socket_url, timeout=WAIT, suppress_origin=True)
        self.next_id = 0
        self.events = []

    @classmethod
    def target(cls, address: str, target_type: str, url_prefix: str) -> "DevTools":
        """A connection to the first target of `target_type` at `url_prefix`, once the browser reports it (its
        Target.targetCreated event, sent for the targets already there too)."""
        version = json.load(urllib.request.urlopen(f"http://{address}/json/version", timeout=5))
        browser = cls(version["webSocketDebuggerUrl"])
        try:
            browser.send("Target.setDiscoverTargets", discover=True)
            created = browser.wait_event(
                "Target.targetCreated",
                lambda p: p["targetInfo"]["type"] == target_type and p["targetInfo"]["url"].startswith(url_prefix))
        finally:
            browser.close()
        return cls(f"ws://{address}/devtools/page/{created['targetInfo']['targetId']}")

    def send(self, method, **params):
        self.next_id += 1
        mine = self.next_id
        self.socket.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == mine:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_event(self, method, matches, timeout=WAIT):
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event["method"] == method and matches(event["params"]):
                    return event["params"]
            if time.monotonic() > deadline:
                raise AssertionError(f"no {method} event")
            self.socket.settimeout(max(0.1, deadline - time.monotonic()))
            message = json.loads(self.socket.recv())
            if "method" in message:
                self.events.append(message)

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression[:80]}…: {result['exceptionDetails']}")
        return result["result"].get("value")

    def close(self):
        self.socket.close()


# Stands in for the browser's push service: subscribe() gives a subscription on the fake service, with the
# keys the test holds; what the page passed (the server's key) is kept for the test to check.
STUB = """
(() => {
  const settings = JSON.parse(sessionStorage.getItem("stub.push") || "null");
  if (!settings) return;
  if (settings.absent) { delete window.PushManager; return; }
  if (settings.hang) {
    PushManager.prototype.subscribe = () => new Promise(() => {});
    PushManager.prototype.getSubscription = async () => null;
    return;
  }
  const make = () => ({
    endpoint: settings.endpoint, expirationTime: null,
    options: { applicationServerKey: Uint8Array.from(JSON.parse(sessionStorage.getItem("stub.key") || "[]")).buffer },
    toJSON() { return { endpoint: settings.endpoint, expirationTime: null, keys: settings.keys }; },
    async unsubscribe() { sessionStorage.removeItem("stub.key"); sessionStorage.setItem("stub.unsubscribed", "1"); return true; },
  });
  PushManager.prototype.subscribe = async function (options) {
    sessionStorage.setItem("stub.key", JSON.stringify([...new Uint8Array(options.applicationServerKey)]));
    sessionStorage.setItem("stub.userVisibleOnly", String(options.userVisibleOnly));
    return make();
  };
  PushManager.prototype.getSubscription = async function () {
    return sessionStorage.getItem("stub.key") ? make() : null;
  };
})();
"""


# What the service worker asks the browser to show is kept as it asks (headless Chromium's own list of shown
# notifications, getNotifications(), comes back empty in some runs).
CAPTURE = """(() => {
    const show = self.registration.showNotification.bind(self.registration);
    self.shownForTest = [];
    self.registration.showNotification = (title, options) => {
      self.shownForTest.push({title, body: options.body, tag: options.tag, data: options.data,
                              renotify: options.renotify, actions: options.actions || []});
      return show(title, options);
    };
    return true;
})()"""


def deliver_push(driver, origin: str, payload: dict) -> list:
    """Hands `payload` to the service worker of `origin` as a push message (DevTools'
    ServiceWorker.deliverPushMessage) and returns what the worker then asked the browser to show."""
    address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
    page = DevTools.target(address, "page", origin)
    worker = None
    try:
        page.send("ServiceWorker.enable")
        registration = page.wait_event(
            "ServiceWorker.workerRegistrationUpdated",
            lambda p: any(r["scopeURL"] == origin + "/" for r in p["registrations"]))
        registration_id = next(r["registrationId"] for r in registration["registrations"] if r["scopeURL"] == origin + "/")
        worker = DevTools.target(address, "service_worker", origin)
        worker.evaluate(CAPTURE)
        page.send("ServiceWorker.deliverPushMessage", origin=origin + "/", registrationId=registration_id,
                  data=json.dumps(payload))
        wait(lambda: len(worker.evaluate("self.shownForTest")) == 1, "the service worker showed no notification")
        return worker.evaluate("self.shownForTest")
    finally:
        page.close()
        if worker:
            worker.close()
