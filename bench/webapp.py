"""The web app's weight and the list's render time, in headless Chromium against `kuroneko serve --demo`.

Weight: every response of a first visit to / (no service worker yet), as Chromium's resource timing saw it:
bodies uncompressed and as sent (gzip); plus every file the app has (manifest, service worker, all icons),
fetched directly with and without gzip. Render: PARCELS watched parcels (200 by default), each labelled and
with its first answer; the page loaded afresh RUNS times; from DOMContentLoaded to the moment the last card
(with the counts per family above them) is in the document, and to the next frame after it. Search: after
each load, a label typed into the search box (one input event) to the frame after the narrowed cards.

Usage: bench/webapp.sh [RUNS] [PARCELS]  (builds release first)."""

import gzip
import json
import os
import statistics
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "WebApp"))
from server import Server, chromium, tracking_numbers  # noqa: E402

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 10
PARCELS = int(sys.argv[2]) if len(sys.argv) > 2 else 200


def fetch(url, zipped):
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if zipped else {})
    with urllib.request.urlopen(request) as response:
        return response.read()


def main():
    server = Server("--min-interval", "0").start()
    try:
        parcels = tracking_numbers(PARCELS, seed=11)
        for first in range(0, PARCELS, 500):  # 500 labelled numbers: well within the 64 KiB body
            items = [{"number": n, "label": f"注文 {i:04d} 山田様"} for i, n in enumerate(parcels[first:first + 500], first)]
            status, body = server.api("POST", "/v1/watches", json.dumps(items).encode())
            assert status == 200 and all(r["status"] == 201 for r in json.loads(body)["results"]), status
        # First answers, for at most 60 s (a card without one is drawn all the same, as 未確認).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            summary = json.loads(server.api("GET", "/v1/watches/summary")[1])
            if summary["by_family"].get("pending", 0) == 0:
                break
            time.sleep(0.5)  # a benchmark's wait for the first answers, not a test
        answered = PARCELS - summary["by_family"].get("pending", 0)

        driver = chromium()
        try:
            driver.get(server.url + "/")
            driver.execute_script("navigator.serviceWorker && navigator.serviceWorker.getRegistrations()"
                                  ".then(rs => rs.forEach(r => r.unregister()))")
            print(f"kuroneko serve --demo, {PARCELS} watched parcels ({answered} with an answer), "
                  f"Chromium {driver.capabilities['browserVersion']}")
            weights = []
            timings = []
            searches = []
            for run in range(RUNS):
                driver.get(server.url + "/")
                driver.execute_script("return 1")
                deadline = time.monotonic() + 30
                while True:
                    result = driver.execute_script("""
                        const painted = performance.getEntriesByName('kuroneko:cards-painted');
                        if (document.querySelectorAll('#cards > li').length !== arguments[0] || !painted.length) return null;
                        const nav = performance.getEntriesByType('navigation')[0];
                        const cards = performance.getEntriesByName('kuroneko:cards');
                        const resources = performance.getEntriesByType('resource').concat([nav]);
                        return {dcl: nav.domContentLoadedEventStart, cards: cards[cards.length - 1].startTime,
                                painted: painted[painted.length - 1].startTime,
                                list: resources.filter(r => r.name.includes('/v1/watches'))
                                    .map(r => ({start: r.startTime, end: r.responseEnd}))[0],
                                sizes: resources.map(r => ({name: r.name, decoded: r.decodedBodySize,
                                                            encoded: r.encodedBodySize}))};""", PARCELS)
                    if result:
                        break
                    if time.monotonic() > deadline:
                        raise SystemExit(f"the {PARCELS} cards were never drawn")
                    time.sleep(0.02)
                assert driver.execute_script("return document.querySelectorAll('[id^=count-]').length") > 0, \
                    "no counts were drawn"
                searches.append(driver.execute_async_script("""
                    const done = arguments[arguments.length - 1];
                    performance.clearMarks('kuroneko:cards-painted');
                    const search = document.getElementById('search');
                    const typed = performance.now();
                    search.value = arguments[0];
                    search.dispatchEvent(new Event('input'));
                    const shown = document.querySelectorAll('#cards > li').length;
                    const look = () => {
                        const painted = performance.getEntriesByName('kuroneko:cards-painted');
                        if (painted.length) done({ms: painted[0].startTime - typed, shown});
                        else requestAnimationFrame(look);
                    };
                    look();""", f"注文 {PARCELS // 2:04d}"))
                timings.append((result["cards"] - result["dcl"], result["painted"] - result["dcl"],
                                result["list"]["end"] - result["list"]["start"], result["cards"] - result["list"]["end"]))
                weights.append(result)
            first = weights[0]["sizes"]
            app = [r for r in first if "/v1/" not in r["name"]]
            data = [r for r in first if "/v1/" in r["name"]]
            kb = lambda rs, key: sum(r[key] for r in rs) / 1000
            print(f"first visit: {len(app)} responses of the app: {kb(app, 'decoded'):.1f} KB uncompressed, "
                  f"{kb(app, 'encoded'):.1f} KB as sent")
            for r in sorted(app, key=lambda r: -r["decoded"]):
                print(f"    {r['name'].rsplit('/', 1)[-1] or '/'}: {r['decoded']} B, {r['encoded']} B as sent")
            print(f"  and the list of {PARCELS} watches: {kb(data, 'decoded'):.1f} KB uncompressed, "
                  f"{kb(data, 'encoded'):.1f} KB as sent")
        finally:
            driver.quit()

        app_plain = app_zipped = 0
        html = fetch(server.url + "/", False).decode()
        prefix = html.split('href="/assets/')[1].split("/")[0]
        manifest = json.loads(fetch(server.url + "/manifest.webmanifest", False))
        worker = fetch(server.url + "/sw.js", False).decode()
        files = ["/", "/manifest.webmanifest", "/sw.js"] + json.loads(worker.split("const PRECACHE = ")[1].split(";")[0])[1:]
        for path in files:
            plain = fetch(server.url + path, False)
            zipped = fetch(server.url + path, True)
            app_plain += len(plain)
            app_zipped += min(len(zipped), len(plain))
        print(f"every file of the app ({len(files)}, icons included, version {prefix}): "
              f"{app_plain / 1000:.1f} KB uncompressed, {app_zipped / 1000:.1f} KB gzipped")
        to_cards = sorted(t[0] for t in timings)
        to_paint = sorted(t[1] for t in timings)
        print(f"render, DOMContentLoaded to the last card ({RUNS} loads): median {statistics.median(to_cards):.1f} ms, "
              f"max {to_cards[-1]:.1f} ms; to the next frame: median {statistics.median(to_paint):.1f} ms, max {to_paint[-1]:.1f} ms")
        print("  each load (to the last card, to the frame, list fetch):",
              ", ".join(f"{a:.0f}/{b:.0f}/{c:.0f}" for a, b, c, _ in timings))
        print(f"  server time for the list (access log, median): "
              f"{statistics.median(float(line.rsplit('duration_ms=', 1)[1]) for line in server.log().splitlines() if 'route=/v1/watches status=200' in line and 'method=GET' in line):.1f} ms")
        typed = sorted(r["ms"] for r in searches)
        print(f"search (a label typed, {searches[0]['shown']} card(s) left of {PARCELS}): median "
              f"{statistics.median(typed):.1f} ms, max {typed[-1]:.1f} ms to the frame after the narrowed cards")
        print(f"  of which fetching the list: median {statistics.median(t[2] for t in timings):.1f} ms; "
              f"from the list's arrival to the last card: median {statistics.median(t[3] for t in timings):.1f} ms")
        del manifest
    finally:
        server.stop()


if __name__ == "__main__":
    main()
