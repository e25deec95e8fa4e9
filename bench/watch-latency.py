"""How late the poller found each status change, from a serve database and the simulator's clock.

For every change: when the new status happened (its event's time on the simulated clock) and when serve
recorded the change (real time, turned into simulated time with the simulator's clock and speed). The bound
is the interval of the status before (by its code, the poller's table, plus 10% jitter) plus one POST slot.
Usage: watch-latency.py DATABASE SIMULATOR_BASE_URL"""
import datetime
import json
import sqlite3
import statistics
import sys
import time
import urllib.request

INTERVALS = {"out_for_delivery": 600, "attempt_failed": 1800, "in_transit": 1800, "exception": 3600,
             "unknown": 3600, "info_received": 7200, "available_for_pickup": 7200}

database, simulator = sys.argv[1], sys.argv[2]
clock = json.load(urllib.request.urlopen(simulator + "/admin/clock"))
asked = time.time()
simulated_now = datetime.datetime.fromisoformat(clock["now"]).timestamp()
speed = clock["speed"]
rows = sqlite3.connect(database).execute("SELECT created_at, previous_json, shipment_json FROM changes").fetchall()
delays, within, counted = [], 0, 0
for created_at, previous, shipment in rows:
    previous_code = json.loads(previous).get("code")
    shipment = json.loads(shipment)
    label = shipment["status"]["label"]
    times = [event["at"] for event in shipment["events"] if event["label"] == label and event["at"]]
    if previous_code not in INTERVALS or not times:
        continue
    happened = datetime.datetime.fromisoformat(times[-1]).timestamp()
    found = simulated_now - speed * (asked - created_at)
    delay = found - happened
    bound = INTERVALS[previous_code] * 1.1 + 60  # one POST slot, generously a simulated minute
    counted += 1
    within += delay <= bound
    delays.append(delay / INTERVALS[previous_code])
if counted:
    print(f"changes with a dated event and a timed status before: {counted}; found within the interval plus one "
          f"POST slot: {within} ({100 * within / counted:.0f}%); delay as a share of the interval: median "
          f"{statistics.median(delays):.2f}, max {max(delays):.2f}")
else:
    print("no changes to measure")
