"""What users write today: the same fields as Kuroneko's parser, with lxml or with BeautifulSoup.

Both select by class token, read the block title, state title, summary, note, the 商品名 / お届け予定日時
pairs and every history row (label, date text, place), and resolve the row's year like Kuroneko does, so
that the timing compares like with like.
"""
import datetime
import re

from bs4 import BeautifulSoup
from lxml import html as lxml_html

DATE = re.compile(r"^(\d{2})月(\d{2})日(?: (\d{2}):(\d{2}))?$")


def resolve(text, now):
    match = DATE.match(text or "")
    if not match:
        return None
    month, day, hour, minute = match.groups()
    limit = now + datetime.timedelta(days=1)
    for year in range(limit.year, limit.year - 8, -1):
        try:
            moment = datetime.datetime(year, int(month), int(day), int(hour or 0), int(minute or 0),
                                       tzinfo=now.tzinfo)
        except ValueError:
            continue
        if moment <= limit:
            return moment.isoformat()
    return None


def shipment(texts, pairs, rows, now):
    """The common result: block texts by class, summary label/value pairs, rows (label, date text, place)."""
    summary = {name.rstrip("：:"): value for name, value in pairs}
    return {**texts, "product": summary.get("商品名"), "scheduled": summary.get("お届け予定日時"),
            "events": [{"label": label, "date_text": date, "at": resolve(date, now), "place": place}
                       for label, date, place in rows]}


FIELDS = {"title": "tracking-invoice-block-title", "label": "tracking-invoice-block-state-title",
          "summary": "tracking-invoice-block-state-summary", "note": "tracking-invoice-block-state-note"}


def _cls(name):
    return "contains(concat(' ', normalize-space(@class), ' '), ' %s ')" % name


def parse_lxml(body, now):
    root = lxml_html.fromstring(body)
    shipments = []
    for block in root.xpath("//*[%s]" % _cls("parts-tracking-invoice-block")):
        texts = {}
        for key, cls in FIELDS.items():
            found = block.xpath(".//*[%s]" % _cls(cls))
            texts[key] = found[0].text_content().strip() if found else None
        pairs = []
        for item in block.xpath(".//*[%s]//*[%s]" % (_cls("tracking-invoice-block-summary"), _cls("item"))):
            value = item.getnext()
            pairs.append((item.text_content().strip(), value.text_content().strip() if value is not None else None))
        rows = []
        for item in block.xpath(".//*[%s]//*[%s]" % (_cls("tracking-invoice-block-detail"), _cls("item"))):
            date = item.getparent().xpath("./*[%s]" % _cls("date"))
            name = item.getparent().xpath("./*[%s]" % _cls("name"))
            rows.append((item.text_content().strip(), date[0].text_content().strip() if date else None,
                         name[0].text_content().strip() if name else None))
        shipments.append(shipment(texts, pairs, rows, now))
    return shipments


def parse_bs4(body, now):
    soup = BeautifulSoup(body, "html.parser")
    shipments = []
    for block in soup.select(".parts-tracking-invoice-block"):
        texts = {}
        for key, cls in FIELDS.items():
            found = block.select_one("." + cls)
            texts[key] = found.get_text(strip=True) if found else None
        pairs = []
        for item in block.select(".tracking-invoice-block-summary .item"):
            value = item.find_next_sibling(class_="data")
            pairs.append((item.get_text(strip=True), value.get_text(strip=True) if value else None))
        rows = []
        for item in block.select(".tracking-invoice-block-detail .item"):
            date = item.find_next_sibling(class_="date")
            name = item.find_next_sibling(class_="name")
            rows.append((item.get_text(strip=True), date.get_text(strip=True) if date else None,
                         name.get_text(strip=True) if name else None))
        shipments.append(shipment(texts, pairs, rows, now))
    return shipments
