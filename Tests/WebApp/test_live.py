"""The list page follows what changed, in headless Chromium: against a server asking `kuroneko simulate` with its
clock standing still, an open list page whose parcels are checked again and again (the same answers) keeps one
question open on `/v1/watches/changes` (a long poll) and never reads the list again; once the simulator's clock
moves and a parcel's answer changes, the page shows it within seconds, without a reload, its own poll a minute
away."""

import json
import os
import sys
import unittest

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(__file__))
from server import Server, Simulator, chromium, tracking_numbers  # noqa: E402
from test_list_at_scale import wait  # noqa: E402

# The page's requests since the timings were last cleared: each one's path and query.
REQUESTS = """return performance.getEntriesByType('resource')
    .map((entry) => new URL(entry.name)).filter((url) => url.pathname.startsWith('/v1/'))
    .map((url) => url.pathname + url.search);"""


class LiveListTests(unittest.TestCase):
    def test_an_unchanged_check_costs_a_small_request_and_a_change_shows(self):
        simulator = Simulator("--speed", "0")
        server = Server("--endpoint", f"yamato={simulator.origin}/cgi-bin/tneko", "--min-interval", "0",
                        demo=False).start()
        driver = chromium()
        try:
            numbers = tracking_numbers(3, seed=4501)
            for number in numbers:
                status, _ = server.api("POST", "/v1/watches", json.dumps({"number": number}).encode())
                self.assertEqual(status, 201)
                self.assertEqual(server.api("POST", f"/v1/watches/{number}/refresh")[0], 200)
            driver.get(server.url + "/")
            # A minute between the page's own polls: what reaches it sooner came by the long poll.
            driver.execute_script("localStorage.setItem('kuroneko.pollSeconds', '60')")
            driver.get(server.url + "/")
            cards = lambda: driver.find_elements(By.CSS_SELECTOR, "#cards > li")
            wait(lambda: len(cards()) == 3, "the three parcels were not listed")
            driver.execute_script("performance.clearResourceTimings()")

            # Checked again and again with the same answers: the page's question stays open on the server and
            # nothing is read again.
            for _ in range(3):
                for number in numbers:
                    self.assertEqual(server.api("POST", f"/v1/watches/{number}/refresh")[0], 200)
            asked = lambda: driver.execute_script(REQUESTS)
            self.assertEqual([path for path in asked() if not path.startswith("/v1/watches/changes?since=")], [],
                             "an unchanged list was read again")

            # A day later the answers move on: the page shows the new status within seconds, by itself.
            before = [card.text for card in cards()]
            simulator.move_clock(86_400)
            for number in numbers:
                self.assertEqual(server.api("POST", f"/v1/watches/{number}/refresh")[0], 200)
            wait(lambda: [card.text for card in cards()] != before, "the changed answers never reached the page",
                 timeout=5)
            self.assertTrue(any(path.startswith("/v1/watches?") for path in asked()), asked())
            # Its questions about changes: a handful over the whole test, not one a poll.
            self.assertLessEqual(sum(path.startswith("/v1/watches/changes") for path in asked()), 4, asked())
        finally:
            driver.quit()
            server.stop()
            simulator.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
