"""1,000 concurrent lookups over 200 distinct uncached numbers, all at once; prints answered and failed.

The 1,000 client threads are started first and released together, so that the server sees the burst at
once rather than at the pace Python starts threads."""
import sys
import threading
import urllib.request

base = sys.argv[1]
numbers = []
for index in range(200):
    eleven = 50000000000 + index * 7919
    numbers.append("%011d%d" % (eleven, eleven % 7))


statuses = [None] * 1000
start = threading.Barrier(1000)


def lookup(index):
    start.wait()
    try:
        with urllib.request.urlopen("%s/v1/shipments/%s" % (base, numbers[index % 200]), timeout=120) as response:
            statuses[index] = response.status
    except Exception as error:  # noqa: BLE001 - any failure counts as not answered
        statuses[index] = repr(error)


threads = [threading.Thread(target=lookup, args=(index,)) for index in range(1000)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("answered=%d failed=%d" % (statuses.count(200), len(statuses) - statuses.count(200)))
