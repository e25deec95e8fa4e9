"""Times the lxml and BeautifulSoup parsers per page; prints page, µs lxml, µs bs4 (tab-separated)."""
import datetime
import pathlib
import statistics
import sys
import time

from yamato_parsers import parse_bs4, parse_lxml

NOW = datetime.datetime(2026, 11, 22, 23, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=9)))


def microseconds_per_call(function, body, rounds=5, round_time=0.5):
    for _ in range(3):
        function(body, NOW)
    samples = []
    for _ in range(rounds):
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < round_time:
            function(body, NOW)
            calls += 1
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


print("page\tlxml_us\tbs4_us")
for path in sys.argv[1:]:
    body = pathlib.Path(path).read_bytes()
    assert parse_lxml(body, NOW) and parse_bs4(body, NOW), path
    print("%s\t%.1f\t%.1f" % (pathlib.Path(path).stem, microseconds_per_call(parse_lxml, body),
                              microseconds_per_call(parse_bs4, body)))
