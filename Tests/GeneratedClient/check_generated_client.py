"""Uses the Python client that openapi-python-client generated from /openapi.json against `serve --demo`:
the document must be clean enough for a generator, and the generated code must talk to the real server.

    python check_generated_client.py BASE_URL   (with the generated package importable)
"""
import sys

from kuroneko_client import Client
from kuroneko_client.api.default import get_readiness, get_shipment, list_shipments, query_shipments
from kuroneko_client.models import Problem, QueryShipmentsBody, Shipment, ShipmentList

client = Client(base_url=sys.argv[1])
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


answer = get_shipment.sync_detailed("3277-5445-9830", client=client)
check(answer.status_code == 200, "getShipment status %s" % answer.status_code)
shipment = answer.parsed
check(isinstance(shipment, Shipment), "getShipment parsed as %r" % type(shipment))
check(shipment.tracking_number == "327754459830", "tracking_number %r" % shipment.tracking_number)
etag = answer.headers.get("etag")
check(etag is not None and answer.headers.get("x-request-id"), "ETag and X-Request-ID present")

unchanged = get_shipment.sync_detailed("327754459830", client=client, if_none_match=etag)
check(unchanged.status_code == 304, "If-None-Match status %s" % unchanged.status_code)

bad = get_shipment.sync_detailed("1234-5678-9015", client=client)
check(bad.status_code == 400 and isinstance(bad.parsed, Problem), "bad number: %s %r" % (bad.status_code, bad.parsed))
check(isinstance(bad.parsed, Problem) and "check digit" in bad.parsed.detail, "problem detail names the check digit")

listed = list_shipments.sync(client=client, numbers="327754459830,1234-5678-9015")
check(isinstance(listed, ShipmentList), "listShipments parsed as %r" % type(listed))
check(len(listed.shipments) == 1 and len(listed.errors) == 1, "one shipment and one error")

queried = query_shipments.sync(client=client, body=QueryShipmentsBody(numbers=["6230-2386-6161"]))
check(isinstance(queried, ShipmentList) and queried.shipments[0].tracking_number == "623023866161",
      "queryShipments answered the number")

ready = get_readiness.sync(client=client)
check(ready is not None and ready.status.value == "ready", "getReadiness: %r" % ready)

if failures:
    print("generated client: " + "; ".join(failures))
    sys.exit(1)
print("generated client: 6 operations used against serve --demo, all answered as documented")
