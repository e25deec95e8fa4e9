"""Kuroneko against a real Home Assistant and mosquitto: what the README's Home Assistant section promises.

Started by scripts/check-home-assistant with the virtual environment's Python (Home Assistant, aiohttp and PyYAML
are there). Everything listens on 127.0.0.1 on free ports: mosquitto, Home Assistant (onboarded through its REST
API, the MQTT integration added through its config flow), and `kuroneko serve --demo --mqtt` with parcels from the
built-in simulator. Then it checks, reading the README itself:

- every entity id of its table exists in Home Assistant (a parcel's with the number of one in the list);
- its dashboard card's template, rendered by Home Assistant, names every parcel of `sensor.kuroneko_arriving_today`
  and says there are none only when there are none;
- its automation's trigger entity exists, and its message template names the parcels out for delivery;
- Home Assistant's log has no template warning (an attribute a template reads that a parcel lacks).

Prints what it found and exits 0 when all hold, 1 otherwise.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(ROOT, "README.md")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(what, check, timeout):
    """Polls `check` (Home Assistant, mosquitto and the server are other processes with no event to subscribe to over
    REST) every half second until it answers, or fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = check()
            if value:
                return value
        except (OSError, urllib.error.URLError, ValueError):
            pass
        time.sleep(0.5)
    raise SystemExit(f"check-home-assistant: {what} did not happen within {timeout} s")


def http(method, url, body=None, token=None, form=False):
    headers = {}
    data = None
    if body is not None:
        if form:
            data = urllib.parse.urlencode(body).encode()
            headers["content-type"] = "application/x-www-form-urlencoded"
        else:
            data = json.dumps(body).encode()
            headers["content-type"] = "application/json"
    if token:
        headers["authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        text = answer.read().decode()
        return json.loads(text) if text and text[0] in "[{" else text


def readme_section():
    text = open(README, encoding="utf-8").read()
    start = text.index("## Home Assistant")
    end = text.index("\n## ", start + 3)
    return text[start:end]


def readme_promises():
    """The entity ids of the README's table, its card's template and its automation."""
    section = readme_section()
    ids = re.findall(r"^\| `((?:sensor|button)\.kuroneko_[a-z_A-Z]+)`", section, flags=re.M)
    blocks = re.findall(r"```yaml\n(.*?)```", section, flags=re.S)
    card = next(yaml.safe_load(block) for block in blocks if "type: markdown" in block)
    automation = next(yaml.safe_load(block) for block in blocks if "triggers:" in block)
    versions = re.findall(r"Home Assistant (20\d\d\.\d+(?:\.\d+)?)", section)
    return ids, card, automation, versions


def start_broker(directory, port):
    config = os.path.join(directory, "mosquitto.conf")
    lines = [f"listener {port} 127.0.0.1", "allow_anonymous true", "persistence false"]
    if os.geteuid() == 0:
        lines.append("user root")
    open(config, "w").write("\n".join(lines) + "\n")
    log = open(os.path.join(directory, "mosquitto.log"), "w")
    executable = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    broker = subprocess.Popen([executable, "-c", config], stdout=log, stderr=log)
    wait_for("mosquitto listening", lambda: socket.create_connection(("127.0.0.1", port), timeout=1).close() or True, 30)
    return broker


def start_home_assistant(directory, port):
    config = os.path.join(directory, "config")
    os.makedirs(config)
    open(os.path.join(config, "configuration.yaml"), "w").write(
        "homeassistant:\n  name: Home\n  latitude: 35.68\n  longitude: 139.76\n  elevation: 40\n"
        "  unit_system: metric\n  time_zone: Asia/Tokyo\n  country: JP\n  language: ja\n  currency: JPY\n"
        f"http:\n  server_host: 127.0.0.1\n  server_port: {port}\n"
        "api:\nconfig:\nonboarding:\nautomation: !include automations.yaml\n"
        "logger:\n  default: info\n  logs:\n    homeassistant.components.mqtt: debug\n")
    open(os.path.join(config, "automations.yaml"), "w").write("[]\n")
    hass = os.path.join(os.path.dirname(sys.executable), "hass")
    log = open(os.path.join(directory, "hass.out"), "w")
    process = subprocess.Popen([hass, "-c", config, "--skip-pip"], stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    wait_for("Home Assistant answering", lambda: http("GET", base + "/api/onboarding") is not None, 240)
    print(f"  Home Assistant answered {time.monotonic() - started:.0f} s after it started")
    return process, base, config


def onboard(base):
    client = base + "/"
    user = http("POST", base + "/api/onboarding/users", {
        "client_id": client, "name": "家族", "username": "family", "password": "kuroneko-check-1", "language": "ja"})
    token = http("POST", base + "/auth/token", {
        "grant_type": "authorization_code", "code": user["auth_code"], "client_id": client}, form=True)["access_token"]
    http("POST", base + "/api/onboarding/core_config", {}, token)
    http("POST", base + "/api/onboarding/analytics", {}, token)
    http("POST", base + "/api/onboarding/integration", {"client_id": client, "redirect_uri": client}, token)
    return token


def add_mqtt(base, token, broker_port):
    flow = http("POST", base + "/api/config/config_entries/flow", {"handler": "mqtt"}, token)
    result = http("POST", base + f"/api/config/config_entries/flow/{flow['flow_id']}",
                  {"broker": "127.0.0.1", "port": broker_port}, token)
    if result.get("type") != "create_entry":
        raise SystemExit(f"check-home-assistant: the MQTT config flow answered {result}")


def valid_numbers(count):
    """Yamato-shaped numbers of the simulator (first digit not 8 or 9), spread over its scenarios."""
    numbers = []
    step = 0
    while len(numbers) < count:
        eleven = (10_000_000_000 + step * 1_234_567_891) % 100_000_000_000
        step += 1
        digits = f"{eleven:011d}{eleven % 7}"
        if digits[0] not in "089":
            numbers.append(digits)
    return numbers


def states(base, token):
    return {state["entity_id"]: state for state in http("GET", base + "/api/states", token=token)}


def main():
    kuroneko = os.path.abspath(sys.argv[1])
    directory = tempfile.mkdtemp(prefix="kuroneko-ha-")
    print(f"check-home-assistant: in {directory}")
    from homeassistant.const import __version__ as ha_version
    ids, card, automation, readme_versions = readme_promises()
    print(f"  Home Assistant {ha_version}; the README names versions {sorted(set(readme_versions))}")
    print(f"  the README's entity ids: {ids}")
    processes = []
    failures = []
    try:
        broker_port, ha_port, server_port = free_port(), free_port(), free_port()
        processes.append(start_broker(directory, broker_port))
        hass, base, config = start_home_assistant(directory, ha_port)
        processes.append(hass)
        token = onboard(base)
        add_mqtt(base, token, broker_port)
        print("  onboarded; the MQTT integration added through its config flow")

        server_log = open(os.path.join(directory, "kuroneko.log"), "w")
        server = subprocess.Popen(
            [kuroneko, "serve", "--demo", "--port", str(server_port), "--db", os.path.join(directory, "k.sqlite"),
             "--mqtt", f"mqtt://127.0.0.1:{broker_port}", "--mqtt-parcels"],
            stdout=server_log, stderr=server_log)
        processes.append(server)
        api = f"http://127.0.0.1:{server_port}"
        wait_for("kuroneko answering", lambda: http("GET", api + "/healthz") is not None, 60)
        numbers = valid_numbers(120)
        http("POST", api + "/v1/watches", [{"number": number} for number in numbers])

        def today_known():
            found = states(base, token)
            today = found.get("sensor.kuroneko_arriving_today")
            parcels = found.get("sensor.kuroneko_in_transit")
            if not today or not parcels or today["state"] in ("unknown", "unavailable"):
                return None
            listed = parcels["attributes"].get("parcels") or []
            return found if int(today["state"]) > 0 and any(p.get("status") for p in listed) else None
        found = wait_for("a parcel arriving today in Home Assistant", today_known, 180)

        # 1. The README's entity ids.
        parcel_ids = sorted(entity for entity in found if entity.startswith("sensor.kuroneko_parcel_"))
        for entity in ids:
            if entity == "sensor.kuroneko_parcel_NUMBER":
                wanted = [f"sensor.kuroneko_parcel_{number}" for number in numbers
                          if f"sensor.kuroneko_parcel_{number}" in found]
                if not wanted:
                    failures.append(f"no sensor.kuroneko_parcel_<number> among {parcel_ids[:5]}")
                continue
            if entity not in found:
                failures.append(f"{entity} does not exist")
        ours = sorted(entity for entity in found if "kuroneko" in entity)
        print(f"  {len(ours)} entities of Kuroneko; the fixed ones: {[e for e in ours if '_parcel_' not in e]}")
        print(f"  parcel sensors: {len(parcel_ids)}, e.g. {parcel_ids[:2]}")

        # A missed parcel's entity carries what a family acts on; a delivered one shows its last status for the day.
        missed = [e for e in parcel_ids if found[e]["attributes"].get("status") == "attempt_failed"]
        for entity in missed:
            attributes = found[entity]["attributes"]
            lacking = [key for key in ("kept_until", "telephone", "redelivery_url") if not attributes.get(key)]
            if lacking:
                failures.append(f"{entity}, missed, lacks {lacking}")
        delivered = [e for e in parcel_ids if found[e]["attributes"].get("status") == "delivered"]
        print(f"  missed parcels: {len(missed)}" + (f", e.g. {missed[0]}: kept_until "
              f"{found[missed[0]]['attributes'].get('kept_until')}, telephone {found[missed[0]]['attributes'].get('telephone')}"
              if missed else ""))
        print(f"  delivered today, still shown: {len(delivered)}"
              + (f", e.g. {delivered[0]} = {found[delivered[0]]['state']}" if delivered else ""))

        # 2. The card, rendered by Home Assistant.
        today = found["sensor.kuroneko_arriving_today"]
        due = today["attributes"].get("parcels") or []
        rendered = http("POST", base + "/api/template", {"template": card["content"]}, token)
        print(f"  arriving today: {today['state']}; the card renders:\n    " + rendered.strip().replace("\n", "\n    "))
        for parcel in due:
            name = parcel.get("label") or parcel.get("number")
            if name not in rendered:
                failures.append(f"the card does not name {name}")
        if due and "ありません" in rendered:
            failures.append("the card says there are none while the sensor lists some")

        # 3. The automation: its trigger entity, its message.
        triggers = automation.get("triggers") or []
        for trigger in triggers:
            entity = trigger.get("entity_id")
            if entity not in found:
                failures.append(f"the automation's trigger entity {entity} does not exist")
        message = automation["actions"][0]["data"]["message"]
        said = http("POST", base + "/api/template", {"template": message}, token)
        out = [p for p in due if p.get("status") == "out_for_delivery"]
        for parcel in out:
            if (parcel.get("label") or parcel.get("number")) not in said:
                failures.append(f"the automation's message does not name {parcel.get('number')}")
        print(f"  the automation triggers on {[t.get('entity_id') for t in triggers]}; its message: {said.strip()!r}")
        # Loaded as Home Assistant loads it: written to automations.yaml, reloaded, its entity on.
        entry = dict(automation, id="kuroneko_out_for_delivery")
        http("POST", base + "/api/config/automation/config/kuroneko_out_for_delivery", entry, token)
        loaded = wait_for("the automation loaded", lambda: [
            s for s in states(base, token).values()
            if s["entity_id"].startswith("automation.") and s["state"] == "on"], 30)
        print(f"  the automation loaded: {[s['entity_id'] for s in loaded]}")

        # 4. No template warning in Home Assistant's log.
        # A marker logged through Home Assistant's own logging after the renders: once it is in the file, every line
        # they wrote is (one queue writes them in order).
        marker = f"kuroneko-check-{time.monotonic_ns()}"
        http("POST", base + "/api/services/system_log/write", {"message": marker, "level": "warning"}, token)
        log_path = os.path.join(config, "home-assistant.log")
        log = wait_for("the marker in Home Assistant's log", lambda: (
            lambda text: text if marker in text else None)(
                open(log_path, encoding="utf-8", errors="replace").read()), 30)
        warnings = [line for line in log.splitlines()
                    if "has no attribute" in line or "Template variable warning" in line or "UndefinedError" in line]
        if warnings:
            failures.append(f"Home Assistant's log: {warnings[:3]}")
        mqtt_warnings = [line for line in log.splitlines()
                         if "WARNING" in line and "mqtt" in line.lower() and "kuroneko" in line.lower()]
        print(f"  Home Assistant's log: {len(warnings)} template warnings, {len(mqtt_warnings)} MQTT warnings naming kuroneko"
              + (f" ({mqtt_warnings[0][:200]})" if mqtt_warnings else ""))
    finally:
        for process in reversed(processes):
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
    if failures:
        print("check-home-assistant: FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("check-home-assistant: the README's entity ids exist, its card and automation work as written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
