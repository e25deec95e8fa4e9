"""The calendar feed of `kuroneko serve --demo`, read by the icalendar package: every active watch with a
dated forecast (or else a dated requested window) is one event, with a stable UID, in its window (or all-day)."""
import datetime
import json
import sys
import urllib.request

import icalendar

base = sys.argv[1]


def call(method, path, body=None):
    request = urllib.request.Request(base + path, method=method, data=body and json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.status, answer.read()


def check(condition, message):
    if not condition:
        sys.exit("check_calendar: " + message)


numbers = []
for index in range(20):
    eleven = (20_000_000_000 + index * 7_919) % 100_000_000_000
    numbers.append("%011d%d" % (eleven, eleven % 7))
for number in numbers:
    status, _ = call("POST", "/v1/watches", {"number": number, "label": "parcel, " + number[-4:]})
    check(status in (200, 201), f"adding {number} answered {status}")

# A refresh answers once its check is done: no waiting on a timer for the first checks.
watches = [json.loads(call("POST", f"/v1/watches/{number}/refresh")[1]) for number in numbers]
check(all(watch["shipment"] is not None for watch in watches), "a refreshed watch has no shipment")

def expected(shipment):
    """The dated forecast, or else the dated window the recipient asked for (a redelivery after 持戻)."""
    for key in ("scheduled_delivery", "requested_delivery"):
        if shipment[key] and shipment[key]["date"]:
            return shipment[key]
    return None


scheduled = {watch["number"]: expected(watch["shipment"]) for watch in watches
             if watch["active"] and expected(watch["shipment"])}
status, body = call("GET", "/v1/calendar.ics")
check(status == 200, f"calendar.ics answered {status}")
calendar = icalendar.Calendar.from_ical(body)
events = {str(event["UID"]): event for event in calendar.walk("VEVENT")}
check(len(events) == len(scheduled) and scheduled, f"{len(events)} events for {len(scheduled)} scheduled deliveries")
tokyo = datetime.timezone(datetime.timedelta(hours=9))
for number, delivery in scheduled.items():
    uid = next((uid for uid in events if number in uid), None)
    check(uid is not None, f"no event for {number}")
    start = events[uid].decoded("DTSTART")
    day = datetime.date.fromisoformat(delivery["date"])
    if delivery["window_start"]:
        hour = int(delivery["window_start"].split(":")[0])
        check(start == datetime.datetime(day.year, day.month, day.day, hour, tzinfo=tokyo), f"{number} starts {start}")
    else:
        check(start == day, f"{number} is all-day on {day}, not {start}")
again = icalendar.Calendar.from_ical(call("GET", "/v1/calendar.ics")[1])
check(sorted(str(event["UID"]) for event in again.walk("VEVENT")) == sorted(events), "UIDs changed between reads")
print(f"check_calendar: {len(events)} events for {len(numbers)} watches, parsed by icalendar {icalendar.__version__}")
