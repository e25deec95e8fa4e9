"""`kuroneko serve --demo` for the browser tests and the web-app benchmark: started on a free port of
127.0.0.1, everything it writes read as it comes (and kept in a file), so a test can wait for a line."""

import json
import os
import random
import re
import ssl
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("KURONEKO_BINARY", os.path.join(ROOT, ".build", "debug", "kuroneko"))


def check_digit(eleven: str) -> int:
    remainder = 0
    for digit in eleven:
        remainder = (remainder * 10 + int(digit)) % 7
    return remainder


def tracking_numbers(count: int, seed: int) -> list[str]:
    """`count` different valid Yamato numbers (twelve digits, check digit right; not starting with 8 or 9, which
    the demo's simulator gives Sagawa and Japan Post)."""
    generator = random.Random(seed)
    numbers: list[str] = []
    while len(numbers) < count:
        eleven = generator.choice("01234567") + "".join(generator.choice("0123456789") for _ in range(10))
        number = eleven + str(check_digit(eleven))
        if number not in numbers:
            numbers.append(number)
    return numbers


class Server:
    """One `kuroneko serve --demo` (or, with demo=False, a server asking the upstream its arguments name), with
    its own SQLite file in a temporary folder."""

    def __init__(self, *arguments: str, database: str | None = None, demo: bool = True, ca_file: str | None = None):
        self.folder = tempfile.mkdtemp(prefix="kuroneko-webapp-")
        self.database = database or os.path.join(self.folder, "watches.sqlite")
        self.log_path = os.path.join(self.folder, "serve.log")
        self.arguments = list(arguments)
        self.demo = demo
        # With --tls-cert: the authority that signed it, which the test's own requests trust.
        self.context = ssl.create_default_context(cafile=ca_file) if ca_file else None
        self.process: subprocess.Popen | None = None
        self.url = ""
        self.lines: list[str] = []
        self.ended = False
        self.changed = threading.Condition()

    def start(self, timeout: float = 30) -> "Server":
        self.process = subprocess.Popen(
            [BINARY, "serve", *(["--demo"] if self.demo else []), "--port", "0", "--db", self.database, *self.arguments],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        # One thread reads everything the server writes (the access log and its stderr), keeps it in a file
        # and wakes whoever waits for a line.
        threading.Thread(target=self._read_output, daemon=True).start()
        line = self.wait_for_log(r"listening on (https?://127\.0\.0\.1:\d+)", timeout)
        self.url = re.search(r"listening on (https?://127\.0\.0\.1:\d+)", line).group(1)
        return self

    def _read_output(self) -> None:
        with open(self.log_path, "ab") as log:
            for raw in self.process.stdout:
                log.write(raw)
                log.flush()
                with self.changed:
                    self.lines.append(raw.decode("utf-8", errors="replace").rstrip("\n"))
                    self.changed.notify_all()
        with self.changed:
            self.ended = True
            self.changed.notify_all()

    def log(self) -> str:
        with self.changed:
            return "\n".join(self.lines)

    def wait_for_log(self, pattern: str, timeout: float = 30, count: int = 1) -> str:
        """The first line matching `pattern` once `count` lines match, woken by each line the server writes;
        fails after `timeout` seconds, or at once if the server exits first."""
        expression = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                matches = [line for line in self.lines if expression.search(line)]
                if len(matches) >= count:
                    return matches[0]
                left = deadline - time.monotonic()
                if self.ended or left <= 0:
                    tail = "\n".join(self.lines[-20:])
                    state = f"kuroneko serve exited ({self.process.poll()})" if self.ended else f"no {count} log lines match"
                    raise AssertionError(f"{state} {pattern!r} within {timeout} s:\n{tail}")
                self.changed.wait(left)

    def api(self, method: str, path: str, body: bytes | None = None, key: str | None = None, headers=None):
        request = urllib.request.Request(self.url + path, data=body, method=method)
        request.add_header("Content-Type", "application/json")
        if key:
            request.add_header("Authorization", f"Bearer {key}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=10, context=self.context) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def stop(self) -> None:
        stop_process(self.process)


def chromium(width: int = 1200, height: int = 900, language: str = "en-US", arguments: tuple[str, ...] = ()):
    """Headless Chromium from Debian, driven through Debian's chromedriver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}", f"--lang={language}", *arguments]:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


def phone_in_japanese(server: "Server", script: str | None = None):
    """Headless Chromium at 360 px with the page's language set to Japanese on `server` (and `script` run in
    every new document before the page's own)."""
    driver = chromium(360, 800, "ja")
    if script:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": script})
    driver.get(server.url + "/")
    driver.execute_script("localStorage.setItem('kuroneko.lang', 'ja')")
    return driver


class Simulator:
    """One `kuroneko simulate` on a free port of 127.0.0.1, whose clock a test moves (PUT /admin/clock)."""

    def __init__(self, *arguments: str):
        self.process = subprocess.Popen([BINARY, "simulate", "--port", "0", *arguments], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        for line in self.process.stderr:  # the first lines it writes; it says where it listens
            found = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
            if found:
                self.origin = found.group(1)
                break
        else:
            raise AssertionError(f"kuroneko simulate exited ({self.process.wait()}) before listening")
        threading.Thread(target=lambda: [None for _ in self.process.stderr], daemon=True).start()

    def move_clock(self, seconds: float) -> None:
        with urllib.request.urlopen(self.origin + "/admin/clock", timeout=10) as response:
            now = json.load(response)["now"]
        from datetime import datetime, timedelta

        later = (datetime.fromisoformat(now) + timedelta(seconds=seconds)).isoformat()
        request = urllib.request.Request(self.origin + "/admin/clock", data=json.dumps({"now": later}).encode(),
                                         method="PUT")
        urllib.request.urlopen(request, timeout=10).close()

    def stop(self) -> None:
        stop_process(self.process)


def still_simulator_and_server(*arguments: str) -> tuple["Simulator", "Server"]:
    """A simulator standing still (its clock moves only when a test moves it) and a server asking it for Yamato
    without pauses, so every first check is made at once."""
    simulator = Simulator("--speed", "0")
    server = Server("--endpoint", f"yamato={simulator.origin}/cgi-bin/tneko", "--min-interval", "0", *arguments,
                    demo=False).start()
    return simulator, server


def stop_process(process: subprocess.Popen | None) -> None:
    """SIGTERM, and SIGKILL after 15 s."""
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def screenshot(test, driver, output: str, name: str, width: int, whole: bool = False) -> None:
    """A screenshot at `width` px (a phone's below 600), failing `test` if the page scrolls sideways; `whole`
    takes the whole page's height, not a screen's."""
    height = 900 if width > 600 else 780
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    if whole:
        height = max(height, driver.execute_script("return document.documentElement.scrollHeight"))
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": min(height, 4000), "deviceScaleFactor": 1, "mobile": width < 600})
    try:
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        test.assertLessEqual(overflow, 0, f"{name} scrolls sideways at {width} px")
        driver.execute_script("window.scrollTo(0, 0)")
        driver.save_screenshot(os.path.join(output, f"{name}-{width}.png"))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


class BrowserTestCase(unittest.TestCase):
    """Tests sharing one server (`cls.server`) and one browser (`cls.driver`, `self.d` in a test), both made by the
    class's `setUpClass` and stopped after its last test."""

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()

    def setUp(self):
        self.d = self.driver
