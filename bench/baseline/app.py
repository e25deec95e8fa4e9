"""The baseline a user would write today: Flask + requests + BeautifulSoup, one upstream POST per lookup,
no cache. Serves GET /v1/shipments/<number> as JSON. UPSTREAM names the tracking form to post to."""
import os

import requests
from bs4 import BeautifulSoup
from flask import Flask, jsonify

UPSTREAM = os.environ.get("UPSTREAM", "https://toi.kuronekoyamato.co.jp/cgi-bin/tneko")
app = Flask(__name__)
session = requests.Session()


@app.get("/v1/shipments/<number>")
def shipment(number):
    digits = "".join(c for c in number if c.isdigit())
    page = session.post(UPSTREAM, data={"number00": "1", "number01": digits}, timeout=15)
    soup = BeautifulSoup(page.content, "html.parser")
    block = soup.select_one(".parts-tracking-invoice-block")
    if block is None:
        return jsonify({"error": "unreadable page"}), 502

    def text(cls):
        found = block.select_one("." + cls)
        return found.get_text(strip=True) if found else None

    events = []
    for item in block.select(".tracking-invoice-block-detail .item"):
        date = item.find_next_sibling(class_="date")
        name = item.find_next_sibling(class_="name")
        events.append({"label": item.get_text(strip=True), "date_text": date.get_text(strip=True) if date else None,
                       "place": name.get_text(strip=True) if name else None})
    return jsonify({"tracking_number": digits, "status": text("tracking-invoice-block-state-title"),
                    "summary": text("tracking-invoice-block-state-summary"), "events": events})
