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


def _cls(name):
    return "contains(concat(' ', normalize-space(@class), ' '), ' %s ')" % name


def parse_lxml(body, now):
    root = lxml_html.fromstring(body)
    shipments = []
    for block in root.xpath("//*[%s]" % _cls("parts-tracking-invoice-block")):
        def text(cls):
            found = block.xpath(".//*[%s]" % _cls(cls))
            return found[0].text_content().strip() if found else None
        summary = {}
        for item in block.xpath(".//*[%s]//*[%s]" % (_cls("tracking-invoice-block-summary"), _cls("item"))):
            value = item.getnext()
            summary[item.text_content().strip().rstrip("：")] = value.text_content().strip() if value is not None else None
        events = []
        for item in block.xpath(".//*[%s]//*[%s]" % (_cls("tracking-invoice-block-detail"), _cls("item"))):
            row = item.getparent()
            date = row.xpath("./*[%s]" % _cls("date"))
            name = row.xpath("./*[%s]" % _cls("name"))
            date_text = date[0].text_content().strip() if date else None
            events.append({"label": item.text_content().strip(), "date_text": date_text,
                           "at": resolve(date_text, now),
                           "place": name[0].text_content().strip() if name else None})
        shipments.append({"title": text("tracking-invoice-block-title"),
                          "label": text("tracking-invoice-block-state-title"),
                          "summary": text("tracking-invoice-block-state-summary"),
                          "note": text("tracking-invoice-block-state-note"),
                          "product": summary.get("商品名"), "scheduled": summary.get("お届け予定日時"),
                          "events": events})
    return shipments


def parse_bs4(body, now):
    soup = BeautifulSoup(body, "html.parser")
    shipments = []
    for block in soup.select(".parts-tracking-invoice-block"):
        def text(cls):
            found = block.select_one("." + cls)
            return found.get_text(strip=True) if found else None
        summary = {}
        for item in block.select(".tracking-invoice-block-summary .item"):
            value = item.find_next_sibling(class_="data")
            summary[item.get_text(strip=True).rstrip("：")] = value.get_text(strip=True) if value else None
        events = []
        for item in block.select(".tracking-invoice-block-detail .item"):
            date = item.find_next_sibling(class_="date")
            name = item.find_next_sibling(class_="name")
            date_text = date.get_text(strip=True) if date else None
            events.append({"label": item.get_text(strip=True), "date_text": date_text,
                           "at": resolve(date_text, now),
                           "place": name.get_text(strip=True) if name else None})
        shipments.append({"title": text("tracking-invoice-block-title"),
                          "label": text("tracking-invoice-block-state-title"),
                          "summary": text("tracking-invoice-block-state-summary"),
                          "note": text("tracking-invoice-block-state-note"),
                          "product": summary.get("商品名"), "scheduled": summary.get("お届け予定日時"),
                          "events": events})
    return shipments
