"""1,000 concurrent lookups over 200 distinct uncached numbers, all at once; prints answered and failed."""
import concurrent.futures
import sys
import urllib.request

base = sys.argv[1]
numbers = []
for index in range(200):
    eleven = 50000000000 + index * 7919
    numbers.append("%011d%d" % (eleven, eleven % 7))


def lookup(index):
    with urllib.request.urlopen("%s/v1/shipments/%s" % (base, numbers[index % 200]), timeout=120) as response:
        return response.status


with concurrent.futures.ThreadPoolExecutor(max_workers=1000) as pool:
    statuses = list(pool.map(lookup, range(1000)))
print("answered=%d failed=%d" % (statuses.count(200), len(statuses) - statuses.count(200)))
