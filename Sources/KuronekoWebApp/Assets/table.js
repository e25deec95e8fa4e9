// The list as a table, for wide screens and long lists: the server sorts and narrows the whole list
// (GET /v1/watches?sort=&offset=), and the table reads only the pages of rows in sight, whatever the list's size.
// Only those rows are in the document; the scroll bar stands for the whole list, so any row is a scroll away.

import { request } from "./api.js";
import { formatTime, statusLabel, t } from "./i18n.js";
import { formatNumber } from "./numbers.js";
import { badge, carrierChip, carrierOf, deliveryWindow, h, watchFamily } from "./views.js";

const ROW = 40; // px: every row is this high (style.css, .watch-table tbody tr)
const PAGE = 100; // rows a request
const KEPT_PAGES = 40; // pages kept (4,000 rows); the least recently used go first
const MAX_HEIGHT = 8_000_000; // px: a taller list scales its scroll bar (browsers cap an element's height)
const OVERSCAN = 8; // rows drawn beyond those in sight, each way

/** The columns: a sort key where the server sorts by it, and the way a first press sorts. */
const COLUMNS = [
  { id: "number", sort: "number" },
  { id: "carrier" },
  { id: "status", sort: "status" },
  { id: "event", sort: "-event" },
  { id: "expected", sort: "expected" },
  { id: "record" },
  { id: "label" },
];

function lastEvent(watch) {
  const events = (watch.shipment && watch.shipment.events) || [];
  return events.length ? events[events.length - 1] : null;
}

/**
 * The table. `options`: `query()` (what the list is narrowed by, as the API's query string), `sort` (the server's
 * order, e.g. "status" or "-event"), `selected` (a Set of numbers, kept across pages), `onSelect()` (the selection
 * changed), `onSort(sort)`, `onTotal(total)` (the narrowed list's size, when it changes), `explain(error)`.
 */
export class WatchTable {
  constructor(options) {
    Object.assign(this, { options, sort: options.sort, total: null, active: 0, generation: 0 });
    this.pages = new Map(); // page index → watches, in the order last used
    this.previous = new Map(); // what was shown before a change, shown until the pages are read again
    this.asking = new Set();
    this.body = h("tbody", { onkeydown: (event) => this.key(event) });
    this.head = h("thead", {}, this.headRow());
    this.table = h("table", { class: "watch-table", role: "grid", "aria-label": t("listTitle") },
      h("colgroup", {}, h("col", { class: "col-select" }), COLUMNS.map((c) => h("col", { class: `col-${c.id}` }))),
      this.head, this.body);
    this.element = h("div", { id: "table", class: "table-scroll" }, this.table);
    this.element.addEventListener("scroll", () => this.schedule(), { passive: true });
    this.resizer = new ResizeObserver(() => this.schedule());
    this.resizer.observe(this.element);
    this.reload();
  }

  headRow() {
    const [key, descending] = this.sort.startsWith("-") ? [this.sort.slice(1), true] : [this.sort, false];
    return h("tr", { "aria-rowindex": 1 }, h("th", { scope: "col", class: "select" }, h("span", { class: "visually-hidden" }, t("selectColumn"))),
      COLUMNS.map((column) => {
        const sorted = column.sort && column.sort.replace("-", "") === key;
        const cell = h("th", { scope: "col", "aria-sort": sorted ? (descending ? "descending" : "ascending") : null },
          column.sort
            ? h("button", { type: "button", class: "sort-button", "data-sort": column.sort, onclick: () => this.sortBy(column) },
              t(`column.${column.id}`), h("span", { class: "sort-mark", "aria-hidden": "true" }, sorted ? (descending ? " ▼" : " ▲") : ""))
            : t(`column.${column.id}`));
        return cell;
      }));
  }

  /** A header pressed: its order, or the other way when it is the order already. */
  sortBy(column) {
    const key = column.sort.replace("-", "");
    const next = this.sort.replace("-", "") === key ? (this.sort.startsWith("-") ? key : `-${key}`) : column.sort;
    this.setSort(next);
    this.options.onSort(next);
    const button = this.head.querySelector(`button[data-sort$="${key}"]`);
    if (button) button.focus();
  }

  setSort(sort) {
    this.sort = sort;
    this.head.replaceChildren(this.headRow());
    this.reload();
  }

  /** Reads the list from its start again (a new filter, search or order). */
  reload() {
    this.generation += 1;
    this.marked = false;
    this.pages.clear();
    this.previous.clear();
    this.asking.clear();
    this.total = null;
    this.active = 0;
    this.element.scrollTop = 0;
    this.draw();
  }

  /** Reads the pages in sight again (the list changed), showing what was there until they come. */
  refresh() {
    this.generation += 1;
    this.previous = new Map([...this.previous, ...this.pages]);
    this.pages.clear();
    this.asking.clear();
    this.draw();
  }

  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => { this.scheduled = false; this.draw(); });
  }

  /** The height the rows stand for, and the first row at a scroll position. */
  geometry() {
    const total = this.total || 0;
    const height = Math.min(total * ROW, MAX_HEIGHT);
    const view = Math.max(ROW, this.element.clientHeight - ROW);
    const scaled = total * ROW > MAX_HEIGHT;
    const top = this.element.scrollTop;
    const first = scaled ? Math.floor((top / Math.max(1, height - view)) * Math.max(0, total - view / ROW)) : Math.floor(top / ROW);
    return { total, height, view, scaled, top, first: Math.min(Math.max(0, first), Math.max(0, total - 1)), rows: Math.ceil(view / ROW) };
  }

  watchAt(index) {
    const page = Math.floor(index / PAGE);
    const rows = this.pages.get(page) || this.previous.get(page);
    return rows ? rows[index % PAGE] || null : null;
  }

  draw() {
    const g = this.geometry();
    if (this.total === null) {
      this.ask(0);
      this.body.replaceChildren(h("tr", { class: "loading" }, h("td", { colspan: COLUMNS.length + 1 }, "…")));
      return;
    }
    const start = g.scaled ? g.first : Math.max(0, g.first - OVERSCAN);
    const end = Math.min(g.total, g.first + g.rows + OVERSCAN);
    for (let page = Math.floor(start / PAGE); page <= Math.floor(Math.max(start, end - 1) / PAGE); page += 1) {
      if (!this.pages.has(page)) this.ask(page); else { const rows = this.pages.get(page); this.pages.delete(page); this.pages.set(page, rows); }
    }
    const hadFocus = this.body.contains(document.activeElement) && document.activeElement.tagName === "TR";
    const above = g.scaled ? g.top : start * ROW;
    const rows = [];
    for (let index = start; index < end; index += 1) rows.push(this.row(index));
    const below = Math.max(0, g.height - above - rows.length * ROW);
    // A row without cells has no height: each spacer holds one cell as high as the rows it stands for (set
    // through the style object: the page's policy refuses style attributes).
    const spacer = (height) => {
      const cell = h("td", { colspan: COLUMNS.length + 1 });
      cell.style.height = `${height}px`;
      return h("tr", { class: "spacer", "aria-hidden": "true" }, cell);
    };
    // replaceChildren writes a null as the text "null": only the parts there are.
    this.body.replaceChildren(...[above ? spacer(above) : null, ...rows, below ? spacer(below) : null,
      g.total === 0 ? h("tr", {}, h("td", { colspan: COLUMNS.length + 1, class: "empty" }, t("noneMatch"))) : null]
      .filter(Boolean));
    this.table.setAttribute("aria-rowcount", g.total + 1);
    if (hadFocus) this.focusActive();
    // For bench/webapp-table.py: the first rows of a new order or filter are in the document.
    if (!this.marked && this.watchAt(start)) { this.marked = true; performance.mark("kuroneko:table-rows"); }
  }

  row(index) {
    const watch = this.watchAt(index);
    const attributes = { "aria-rowindex": index + 2, "data-index": index, tabindex: index === this.active ? 0 : -1 };
    if (!watch) return h("tr", { ...attributes, class: "pending-row" }, h("td", { colspan: COLUMNS.length + 1 }, "…"));
    const event = lastEvent(watch);
    const shipment = watch.shipment;
    const record = watch.record || {};
    const name = watch.label || formatNumber(watch.number);
    const box = h("input", { type: "checkbox", class: "select", tabindex: -1, "aria-label": t("select", { name }), checked: this.options.selected.has(watch.number) });
    box.addEventListener("change", () => this.choose(watch.number, box.checked));
    return h("tr", { ...attributes, "data-number": watch.number, class: `family-${watchFamily(watch)}`, onclick: () => { this.active = index; } },
      h("td", { class: "select" }, box),
      h("td", { class: "number" }, h("a", { href: `/parcel/${watch.number}`, tabindex: -1 }, formatNumber(watch.number))),
      h("td", {}, carrierChip(carrierOf(watch))),
      h("td", {}, badge(shipment && shipment.status, watchFamily(watch))),
      h("td", { class: "event" }, event ? `${formatTime(event.at)} · ${statusLabel(event)}${event.place ? ` · ${event.place}` : ""}` : t("noEvents")),
      h("td", {}, deliveryWindow(shipment && shipment.scheduled_delivery) || ""),
      h("td", {}, [record.reference, record.recipient && record.recipient.name].filter(Boolean).join(" · ")),
      h("td", { class: "label" }, watch.label || ""));
  }

  choose(number, chosen) {
    if (chosen) this.options.selected.add(number); else this.options.selected.delete(number);
    this.options.onSelect();
  }

  /** Reads one page, unless it is being read; a newer reload makes its answer moot. */
  async ask(page) {
    if (this.asking.has(page)) return;
    this.asking.add(page);
    const generation = this.generation;
    const query = this.options.query();
    try {
      const answer = await request(`/v1/watches?sort=${encodeURIComponent(this.sort)}&offset=${page * PAGE}&limit=${PAGE}${query ? `&${query}` : ""}`);
      if (generation !== this.generation) return;
      this.pages.set(page, answer.data.watches || []);
      this.previous.delete(page);
      while (this.pages.size > KEPT_PAGES) this.pages.delete(this.pages.keys().next().value);
      if (this.total !== answer.data.total) this.options.onTotal(answer.data.total || 0);
      this.total = answer.data.total || 0;
      this.active = Math.min(this.active, Math.max(0, this.total - 1));
      this.schedule();
    } catch (error) {
      if (generation === this.generation) this.options.explain(error);
    } finally {
      if (generation === this.generation) this.asking.delete(page);
    }
  }

  /** Up and down, a screen at a time, to either end; Space selects, Enter opens. */
  key(event) {
    if (event.target.tagName !== "TR" || this.total === null) return;
    const g = this.geometry();
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: g.rows, PageUp: -g.rows, Home: -Infinity, End: Infinity };
    if (event.key in moves) {
      event.preventDefault();
      this.moveTo(Math.min(Math.max(0, this.active + moves[event.key]), Math.max(0, g.total - 1)));
    } else if (event.key === " ") {
      event.preventDefault();
      const watch = this.watchAt(this.active);
      if (watch) { this.choose(watch.number, !this.options.selected.has(watch.number)); this.draw(); }
    } else if (event.key === "Enter") {
      const link = event.target.querySelector("a[href]");
      if (link) { event.preventDefault(); link.click(); }
    }
  }

  /** Makes a row the active one, scrolled into sight and focused. */
  moveTo(index) {
    this.active = index;
    const g = this.geometry();
    if (g.scaled) {
      this.element.scrollTop = (index / Math.max(1, g.total - g.view / ROW)) * Math.max(1, g.height - g.view);
    } else if (index * ROW < g.top) {
      this.element.scrollTop = index * ROW;
    } else if ((index + 1) * ROW > g.top + g.view) {
      this.element.scrollTop = (index + 1) * ROW - g.view;
    }
    this.draw();
    this.focusActive();
  }

  focusActive() {
    const row = this.body.querySelector(`tr[data-index="${this.active}"]`);
    if (row) row.focus({ preventScroll: true });
  }

  /** Whether the table is still in the document. */
  get shown() { return this.element.isConnected; }
}
