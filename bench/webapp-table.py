"""The table on a long list, in headless Chromium at 1366 px: a watch list already filled (by
bench/watch-list-100k.py, whose folder it leaves in /tmp) served by `kuroneko serve` (its poller idle). Measured
in the page (performance marks and `performance.now()`): the time from navigation to the first rows drawn
(LOADS loads), from a scroll to any of PAGES rows spread over the list to that row drawn with its parcel, and
from a press on a heading to the first rows of that order drawn.

Usage: python3 bench/webapp-table.py KURONEKO_BINARY LIST.sqlite [LOADS] [PAGES]
"""
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "WebApp"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "TLS"))
from peers import start  # noqa: E402
from server import chromium  # noqa: E402

LOADS = int(sys.argv[3]) if len(sys.argv) > 3 else 5
PAGES = int(sys.argv[4]) if len(sys.argv) > 4 else 20

FIRST_ROWS = """return (performance.getEntriesByName('kuroneko:table-rows').slice(-1)[0] || {}).startTime || null"""

# Scrolls the table so row `index` is at its top and resolves with the milliseconds until it is drawn with its
# parcel (or null after 30 s).
SCROLL_TO = """
const [index, done] = arguments;
const scroller = document.getElementById('table');
const began = performance.now();
scroller.scrollTop = index * 40;
(function look() {
  const row = document.querySelector(`#table tbody tr[data-index="${index}"][data-number]`);
  if (row) return done(performance.now() - began);
  if (performance.now() - began > 30000) return done(null);
  requestAnimationFrame(look);
})();"""

# Presses a heading and resolves with the milliseconds until the first rows of the new order are drawn.
SORT_BY = """
const [key, done] = arguments;
const marks = performance.getEntriesByName('kuroneko:table-rows').length;
const began = performance.now();
document.querySelector(`#table thead button[data-sort$="${key}"]`).click();
(function look() {
  const now = performance.getEntriesByName('kuroneko:table-rows');
  if (now.length > marks) return done(now[now.length - 1].startTime - began);
  if (performance.now() - began > 30000) return done(null);
  requestAnimationFrame(look);
})();"""


def wait_for(driver, script, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"nothing came of {script[:60]}")


def main():
    binary, database = sys.argv[1], sys.argv[2]
    server, base = start([binary, "serve", "--port", "0", "--db", database, "--endpoint",
                          "http://127.0.0.1:9/cgi-bin/tneko", "--poll-speed", "0.001"])
    driver = None
    try:
        driver = chromium(1366, 900)
        driver.get(base + "/")
        driver.execute_script("localStorage.setItem('kuroneko.view', 'table'); localStorage.setItem('kuroneko.tableSort', 'status')")
        loads = []
        for _ in range(LOADS):
            driver.get(base + "/")
            loads.append(wait_for(driver, FIRST_ROWS))
        total = int(wait_for(driver, "return document.querySelector('#table table')?.getAttribute('aria-rowcount')")) - 1
        print(f"{total:,} watches; first rows drawn after navigation (ms): {', '.join(f'{t:.0f}' for t in loads)} "
              f"(median {statistics.median(loads):.0f})")

        driver.set_script_timeout(60)
        rows = sorted(random.Random(45).sample(range(total), PAGES))
        scrolls = [driver.execute_async_script(SCROLL_TO, index) for index in rows]
        assert all(value is not None for value in scrolls), scrolls
        print(f"any row by scrolling ({PAGES} rows from {rows[0]:,} to {rows[-1]:,}, ms): median "
              f"{statistics.median(scrolls):.0f}, max {max(scrolls):.0f}")
        # Back to the top: the sort's first rows are the ones in sight.
        driver.execute_async_script(SCROLL_TO, 0)
        for key in ["expected", "expected", "status", "event", "number"]:
            took = driver.execute_async_script(SORT_BY, key)
            order = driver.execute_script("return localStorage.getItem('kuroneko.tableSort')")
            print(f"sorted by {order}: first rows drawn after {took:.0f} ms" if took is not None else f"{order}: none")
        print("browser errors:", json.dumps([e["message"][:120] for e in driver.get_log("browser") if e["level"] == "SEVERE"]))
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
