// The dashboard: the list at /, a parcel at /parcel/NUMBER, kept current by conditional requests.

import { ApiError, listWatches, request, storeKey, storedKey, watchPath, watchSummary } from "./api.js";
import { formatDate, formatTime, language, refusal, relativeTime, setLanguage, statusLabel, t, translateStatic } from "./i18n.js";
import { checkNumber, formatNumber } from "./numbers.js";
import { ALL, pushControl } from "./notify.js";
import { showSettings } from "./settings.js";
import { showPeople } from "./people.js";
import { arrivesToday, card, carrierChip, carrierOf, carrierSite, changeDeliveryLink, deliveryWindow, facts, goesBack, h, nextStep, progress, setCarriers, timeline, todayInJapan, watchFamily } from "./views.js";
import { asksToCall, carrierWords, changeLog, deliveryLog, estimateLine, offices, webhookForm } from "./parcel-parts.js";
import { addForm } from "./add-form.js";
import { noticeSection } from "./notices.js";
import { showJoin, showSignIn } from "./signin.js";
import { recordSection } from "./record.js";
import { demoOffer, downloadCSV, drawCounts, isDemo } from "./list-parts.js";
import { follow, followFromNow } from "./live.js";
import { WatchTable } from "./table.js";

const main = document.getElementById("main");
const banner = document.getElementById("banner");
const storage = {
  get(name, fallback) { try { return localStorage.getItem(name) || fallback; } catch (e) { return fallback; } },
  set(name, value) { try { localStorage.setItem(name, value); } catch (e) { /* no storage */ } },
};

const state = {
  watches: null, etag: null, listKey: null, summary: null, more: false, savedAt: null, loadedAt: null,
  sort: storage.get("kuroneko.sort", "status"), filter: storage.get("kuroneko.filter", "all"),
  view: storage.get("kuroneko.view", "auto"), tableSort: storage.get("kuroneko.tableSort", "status"), table: null,
  parcel: null, parcelEtag: null, message: "",
  family: "all", today: false, stalled: false, overdue: false, query: "", selected: new Set(), awaiting: new Set(),
};

// ---- Routing ------------------------------------------------------------------------------------------

function currentNumber() {
  const match = /^\/parcel\/([^/]+)\/?$/.exec(location.pathname);
  return match ? decodeURIComponent(match[1]) : null;
}

function route() {
  if (banner.dataset.note) showBanner(""); // what was said of the last page's action is not this page's
  const number = currentNumber();
  if (number !== null) return showParcel(number);
  if (location.pathname === "/join") return showJoin(main, () => { state.etag = null; route(); });
  if (location.pathname === "/settings") {
    state.parcel = null;
    return showSettings(main, explain);
  }
  if (location.pathname === "/people") {
    state.parcel = null;
    return showPeople(main, explain);
  }
  return showList();
}

function navigate(path) {
  history.pushState(null, "", path);
  route();
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("a[href]");
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const inApp = ["/", "/settings", "/people"].includes(link.pathname) || link.pathname.startsWith("/parcel/");
  if (link.origin !== location.origin || !inApp) return;
  event.preventDefault();
  navigate(link.pathname);
});
window.addEventListener("popstate", route);

// ---- Banner and errors ----------------------------------------------------------------------------------

function showBanner(text, tone = "info") {
  banner.textContent = text;
  banner.className = `banner ${tone}`;
  banner.hidden = !text;
  delete banner.dataset.note;
}

/** Says what the person's own action did: polls leave it up; the next message or another page replaces it. */
function showNote(text, tone = "info") {
  showBanner(text, tone);
  if (text) banner.dataset.note = "action";
}

/** Puts a failure into words; true when the caller should stop drawing (a key is asked for instead). A
 *  refusal of the person's own action (`action`) stays up through later polls. */
function explain(error, { action = false } = {}) {
  if (!(error instanceof ApiError)) throw error;
  if (error.kind === "key") {
    showKeyForm(error);
    return true;
  }
  if (error.kind === "offline") {
    const when = state.loadedAt ? formatTime(state.loadedAt) : null;
    showBanner(when ? t("offline", { when }) : t("offlineNothing"), "warning");
    return false;
  }
  (action ? showNote : showBanner)(refusal(error.status, error.detail, error.reason), "error");
  return false;
}

function showKeyForm(error) {
  showBanner("");
  // A server with accounts asks people to sign in; the key form stays one button away.
  if (!storedKey() && (error.reason === "signed_out" || /^sign in first/.test(error.detail))) {
    showSignIn(main, () => { state.etag = null; route(); }, () => showKeyEntry(error));
    return;
  }
  showKeyEntry(error);
}

function showKeyEntry(error) {
  showBanner("");
  const hadKey = storedKey() !== "";
  const input = h("input", { id: "api-key", type: "password", required: true, spellcheck: "false" });
  const form = h("form", { id: "key-form", class: "panel" },
    h("h1", {}, t("keyTitle")), h("p", {}, t("keyExplain")),
    hadKey ? h("p", { id: "key-error", class: "error", role: "alert" }, t("keyRejected", { detail: error.detail })) : null,
    h("label", { for: "api-key" }, t("keyLabel")), input,
    h("button", { type: "submit" }, t("keyUse")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    storeKey(input.value.trim());
    state.etag = null; route();
  });
  main.replaceChildren(form);
  input.focus();
}

// ---- The list ---------------------------------------------------------------------------------------

const FAMILY_ORDER = ["problem", "returning", "waiting", "out", "transit", "shipped", "accepted", "pending", "delivered", "returned"];

function latestTime(watch) {
  const events = (watch.shipment && watch.shipment.events) || [];
  return events.length ? events[events.length - 1].at || "" : "";
}

/**
 * What the server narrows the list by (the page never narrows it itself, so a count or a filter here is the
 * API's): the active/finished filter, the family chip, today's forecasts, the search. `counted` leaves out what
 * the summary counts by (the family and today), so its counts are of the list the chips narrow.
 */
function listQuery({ counted = false } = {}) {
  const parts = [];
  if (state.filter === "active" || state.filter === "finished") parts.push(`status=${state.filter}`);
  if (!counted && state.family !== "all") parts.push(`family=${encodeURIComponent(state.family)}`);
  if (!counted && state.today) parts.push("forecast=today");
  if (!counted && state.stalled) parts.push("stalled=true");
  if (!counted && state.overdue) parts.push("overdue=true");
  const text = state.query.replace(/[\u0000-\u001f\u007f]/g, " ").trim().slice(0, 200);
  if (text) parts.push(`q=${encodeURIComponent(text)}`);
  return parts.join("&");
}

/** The loaded watches in the chosen order (the server sends them in the order they were added). */
function visibleWatches() {
  const watches = [...(state.watches || [])];
  const byDate = (a, b) => latestTime(b).localeCompare(latestTime(a)) || b.created_at.localeCompare(a.created_at);
  if (state.sort === "date") return watches.sort(byDate);
  // Today first: out for delivery, then planned for today, then kept after a missed delivery (the recipient
  // must act before its last day); then the rest by family.
  const today = todayInJapan();
  const rank = (watch) => {
    if (arrivesToday(watch, today)) return watch.shipment.status.code === "out_for_delivery" ? 0 : 1;
    if (watch.missed_delivery) return 2;
    return 3 + FAMILY_ORDER.indexOf(watchFamily(watch));
  };
  return watches.sort((a, b) => rank(a) - rank(b) || byDate(a, b));
}

function listControls() {
  // The cards are sorted here (the list they hold is read whole); the table's order is the server's.
  const sorts = state.table
    ? ["status", "-status", "-event", "event", "expected", "-expected", "number", "-number"]
      .map((value) => [value, `${t(`column.${value.replace("-", "")}`)} ${value.startsWith("-") ? "↓" : "↑"}`])
    : [["status", t("sortStatus")], ["date", t("sortDate")]];
  const sort = h("select", { id: "sort" }, sorts.map(([value, words]) => h("option", { value }, words)));
  sort.value = state.table ? state.tableSort : state.sort;
  sort.addEventListener("change", () => {
    if (state.table) { tableSorted(sort.value); state.table.setSort(sort.value); return; }
    state.sort = sort.value; storage.set("kuroneko.sort", sort.value); drawCards();
  });
  const view = h("select", { id: "view" }, h("option", { value: "cards" }, t("viewCards")), h("option", { value: "table" }, t("viewTable")));
  view.value = state.table ? "table" : "cards";
  view.addEventListener("change", () => { state.view = view.value; storage.set("kuroneko.view", view.value); showList(); });
  const filters = h("fieldset", { class: "filters" }, h("legend", {}, t("filterLabel")),
    ["all", "active", "finished"].map((value) => h("label", {},
      h("input", {
        type: "radio", name: "filter", value, checked: state.filter === value,
        onchange: () => { state.filter = value; storage.set("kuroneko.filter", value); loadList(); },
      }),
      t(`filter${value[0].toUpperCase()}${value.slice(1)}`))));
  const search = h("input", {
    id: "search", type: "search", value: state.query, "aria-describedby": "count",
    placeholder: t("searchHint"),
  });
  // Asked of the server once typing pauses.
  let typing = null;
  search.addEventListener("input", () => {
    state.query = search.value;
    clearTimeout(typing);
    typing = setTimeout(loadList, 200);
  });
  const download = h("button", { type: "button", id: "download", class: "secondary" }, t("download"));
  // The download is the list as on screen: narrowed and in its order.
  const order = () => (state.table ? state.tableSort : state.sort === "date" ? "-event" : "status");
  download.addEventListener("click", () => downloadCSV(explain, `${listQuery()}&sort=${encodeURIComponent(order())}`));
  const removeSelected = h("button", { type: "button", id: "remove-selected", class: "danger", hidden: true });
  removeSelected.addEventListener("click", () => removeMany([...state.selected]));
  const removeFinished = h("button", { type: "button", id: "remove-finished", class: "secondary" }, t("removeFinished"));
  removeFinished.addEventListener("click", removeAllFinished);
  const selectAll = h("input", { type: "checkbox", id: "select-all" });
  selectAll.addEventListener("change", () => {
    for (const watch of visibleWatches()) {
      if (selectAll.checked) state.selected.add(watch.number); else state.selected.delete(watch.number);
    }
    drawCards();
  });
  // Search and counts stay in sight; the rest folds away on a phone, so a parcel is on the first screen.
  const tools = h("details", { id: "list-tools", class: "list-tools" }, h("summary", { id: "tools-toggle" }, t("listTools")),
    h("div", { class: "row" }, download, removeFinished,
      state.table ? null : h("label", { class: "check", for: "select-all" }, selectAll, t("selectAll"))),
    h("div", { class: "row" }, h("label", { class: "sort" }, h("span", {}, t("sortLabel")), sort),
      h("label", { class: "sort" }, h("span", {}, t("viewLabel")), view), filters));
  // Beside the table they fold away too: its rows come first.
  tools.open = window.matchMedia("(min-width: 700px)").matches && !state.table;
  return h("div", { class: "controls" },
    h("div", { class: "row" },
      h("label", { class: "grow search" }, h("span", { class: "visually-hidden" }, t("search")), search), removeSelected),
    h("div", { id: "counts", class: "counts", role: "group", "aria-label": t("countsLabel") }), tools);
}

async function removeMany(numbers) {
  if (!numbers.length || !window.confirm(t("confirmRemoveMany", { n: numbers.length }))) return;
  try {
    // The server takes 1,000 numbers a request; a selection across many pages of the table may hold more.
    for (let start = 0; start < numbers.length; start += 1000) {
      await request("/v1/watches/remove", { method: "POST", body: { numbers: numbers.slice(start, start + 1000) } });
    }
    state.selected.clear();
    state.watches = (state.watches || []).filter((watch) => !numbers.includes(watch.number));
    state.etag = null;
    showNote(t("removedMany", { n: numbers.length }));
    drawCards();
    await loadList();
  } catch (error) {
    explain(error, { action: true });
  }
}

function drawSelection() {
  const button = document.getElementById("remove-selected");
  if (!button) return;
  const count = state.table ? state.selected.size
    : [...state.selected].filter((number) => (state.watches || []).some((w) => w.number === number)).length;
  button.hidden = count === 0;
  button.textContent = t("removeSelected", { n: count });
  const all = document.getElementById("select-all");
  const shown = visibleWatches();
  if (all) all.checked = shown.length > 0 && shown.every((watch) => state.selected.has(watch.number));
}

/** Removes every finished parcel (delivered, returned, a wrong number) in one request, after the person confirms. */
async function removeAllFinished() {
  if (!window.confirm(t("confirmRemoveFinished"))) return;
  try {
    const answer = await request("/v1/watches/remove", { method: "POST", body: { finished: true } });
    state.selected.clear();
    state.etag = null;
    await loadList();
    showNote(t("removedMany", { n: (answer.data && answer.data.removed) || 0 }));
  } catch (error) {
    explain(error, { action: true });
  }
}

function drawCards() {
  const list = document.getElementById("cards");
  if (!list) return;
  const watches = visibleWatches();
  const total = state.summary ? state.summary.total : (state.watches || []).length;
  document.getElementById("count").textContent = total ? t("count", { shown: watches.length, total }) : "";
  const fragment = document.createDocumentFragment();
  for (const watch of watches) {
    const item = card(watch);
    const action = changeDeliveryLink(watch, true);
    if (action) item.append(action);
    const box = h("input", {
      type: "checkbox", class: "select", "aria-label": t("select", { name: watch.label || formatNumber(watch.number) }),
      checked: state.selected.has(watch.number),
    });
    box.addEventListener("change", () => {
      if (box.checked) state.selected.add(watch.number); else state.selected.delete(watch.number);
      drawSelection();
    });
    item.append(box);
    fragment.append(item);
  }
  list.replaceChildren(fragment);
  drawCounts(state, loadList);
  drawSelection();
  const empty = document.getElementById("empty");
  empty.textContent = total === 0 ? t("empty") : watches.length === 0 ? t("noneMatch") : "";
  if (total === 0 && isDemo()) empty.append(" ", demoOffer());
  const panel = document.getElementById("add-panel");
  if (panel && total === 0) panel.open = true;
  // For bench/webapp.py: the cards are in the document, and (a frame later) drawn.
  performance.mark("kuroneko:cards");
  requestAnimationFrame(() => setTimeout(() => performance.mark("kuroneko:cards-painted")));
}

/** The table where the screen is wide enough for its columns (or where the person chose it), else the cards. */
const tableWide = window.matchMedia("(min-width: 1280px)");
tableWide.addEventListener("change", () => { if (state.view === "auto" && !state.parcel && document.getElementById("count")) showList(); });
const tableMode = () => state.view === "table" || (state.view === "auto" && tableWide.matches);
function tableSorted(sort) { state.tableSort = sort; storage.set("kuroneko.tableSort", sort); }

function showList() {
  state.parcel = null;
  document.title = `${t("listTitle")} · Kuroneko`;
  state.table = tableMode() ? new WatchTable({
    query: listQuery, sort: state.tableSort, selected: state.selected, onSelect: drawSelection, explain,
    onSort: (sort) => { tableSorted(sort); const select = document.getElementById("sort"); if (select) select.value = sort; },
    onTotal: (total) => {
      document.getElementById("count").textContent = t("count", { shown: total, total: state.summary ? state.summary.total : total });
      document.getElementById("empty").textContent = state.summary && state.summary.total === 0 ? t("empty") : "";
    },
  }) : null;
  state.tableKey = listQuery();
  state.tableFresh = state.table !== null;
  // On a phone the list comes first and adding folds away behind its summary; wider, it stays open.
  const panel = h("details", { id: "add-panel", class: "add-panel" }, h("summary", { id: "add-toggle" }, t("addTitle")), addForm({ state, loadList, awaitFirstChecks, showKeyForm }));
  const wide = window.matchMedia("(min-width: 700px)");
  // Beside a table (a long list, read for work) adding folds away too.
  panel.open = (wide.matches && !state.table) || (state.watches !== null && state.watches.length === 0);
  wide.onchange = (event) => { if (event.matches) panel.open = true; };
  // On a phone (style.css) the list leads and the notification switch and adding come after it.
  main.replaceChildren(
    h("h1", { class: "list-heading" }, t("listTitle")), h("div", { class: "list-extras" }, pushControl(ALL), panel),
    h("section", { "aria-labelledby": "list-title", class: "list" },
      h("h2", { id: "list-title", class: "visually-hidden" }, t("listTitle")),
      listControls(), h("p", { id: "count", class: "hint", "aria-live": "polite" }), h("p", { id: "empty", class: "empty" }),
      state.table ? state.table.element : h("ul", { id: "cards", class: "cards" })));
  if (state.watches && !state.table) drawCards();
  return followFromNow().then(loadList).then(followList);
}

async function loadList() {
  if (state.table) return loadTable();
  const key = listQuery();
  try {
    const [answer, summary] = await Promise.all([
      listWatches(key, state.listKey === key ? state.etag : null),
      // Without counts (an offline copy, say) the list is still shown.
      watchSummary(listQuery({ counted: true })).catch(() => null),
    ]);
    // The filters changed while this was asked: the load they started shows theirs.
    if (listQuery() !== key) return;
    const countsChanged = JSON.stringify(summary) !== JSON.stringify(state.summary);
    state.summary = summary;
    if (answer.status !== 304) {
      state.watches = answer.data;
      state.more = answer.more;
      state.etag = answer.etag;
      state.listKey = key;
    }
    noteFreshness(answer.savedAt);
    knowCarriers();
    // Redrawn only when something changed (a poll that finds nothing new leaves the page as it is).
    if (answer.status !== 304 || countsChanged || state.drawnKey !== key) {
      state.drawnKey = key;
      drawCards();
    }
  } catch (error) {
    explain(error);
  }
}

/** The table's counts, and its rows: from the start for a new filter or search, else those in sight again. */
async function loadTable() {
  const key = listQuery();
  const summary = await watchSummary(listQuery({ counted: true })).catch(() => null);
  if (!state.table || !state.table.shown) return;
  if (summary) knowCarriers();
  state.summary = summary;
  drawCounts(state, loadList);
  drawSelection();
  // Just made, the table is reading its rows already: the first load after it reads only the counts.
  if (state.tableFresh) { state.tableFresh = false; if (state.tableKey === key) return; }
  if (state.tableKey === key) { state.table.refresh(); return; }
  state.tableKey = key;
  state.table.reload();
}

/** Clears the offline banner, or puts it up when the service worker answered from its copy. */
function noteFreshness(savedAt) {
  if (savedAt) {
    showBanner(t("offline", { when: formatTime(savedAt) }), "warning");
  } else {
    state.loadedAt = new Date().toISOString();
    if (!banner.dataset.note) showBanner("");
  }
}

// ---- A parcel ---------------------------------------------------------------------------------------

async function showParcel(input) {
  const check = checkNumber(input);
  if (check.error) {
    main.replaceChildren(h("h1", {}, t("badAddress", { input })), h("p", {}, h("a", { href: "/" }, t("back"))));
    return;
  }
  if (!state.parcel || state.parcel.number !== check.digits) {
    state.parcel = { number: check.digits, watch: null, changes: [], deliveries: [] };
    state.parcelEtag = null;
    main.replaceChildren(h("p", { class: "loading" }, "…"));
  }
  await loadParcel();
}

async function loadParcel() {
  const parcel = state.parcel;
  if (!parcel) return;
  try {
    const answer = await request(watchPath(parcel.number), { etag: state.parcelEtag });
    noteFreshness(answer.savedAt);
    if (answer.status === 304 && parcel.watch) return;
    const [changes, deliveries] = await Promise.all([
      request(`${watchPath(parcel.number)}/changes`).catch(() => null),
      request(`${watchPath(parcel.number)}/deliveries`).catch(() => null),
    ]);
    if (state.parcel !== parcel) return;
    parcel.watch = answer.data;
    parcel.changes = changes && changes.data ? changes.data.changes : parcel.changes;
    parcel.deliveries = deliveries && deliveries.data ? deliveries.data.deliveries : parcel.deliveries;
    state.parcelEtag = answer.etag;
    drawParcel();
  } catch (error) {
    if (error instanceof ApiError && error.kind === "missing") {
      main.replaceChildren(h("h1", {}, t("notWatched", { number: formatNumber(parcel.number) })),
        h("p", {}, h("a", { href: "/" }, t("back"))));
      return;
    }
    if (!explain(error) && !parcel.watch) {
      main.replaceChildren(h("p", {}, h("a", { href: "/" }, t("back"))));
    }
  }
}

function drawParcel() {
  const { watch, changes, deliveries } = state.parcel;
  const shipment = watch.shipment;
  const status = shipment && shipment.status;
  const title = watch.label || formatNumber(watch.number);
  document.title = `${title} · Kuroneko`;
  const refresh = h("button", { id: "refresh", type: "button" }, t("refresh"));
  refresh.addEventListener("click", async () => {
    refresh.disabled = true;
    refresh.textContent = t("refreshing");
    try {
      await request(`${watchPath(watch.number)}/refresh`, { method: "POST" });
      state.parcelEtag = null;
      await loadParcel();
    } catch (error) {
      explain(error, { action: true });
      refresh.disabled = false;
      refresh.textContent = t("refresh");
    }
  });
  const confirmBox = h("div", { id: "confirm-remove", class: "confirm", role: "group", hidden: true },
    h("p", {}, t("confirmRemove", { number: formatNumber(watch.number) })),
    h("button", { id: "confirm-remove-yes", type: "button", class: "danger", onclick: () => removeParcel(watch.number) }, t("remove")),
    h("button", { id: "confirm-remove-no", type: "button", onclick: () => { confirmBox.hidden = true; removeButton.focus(); } }, t("cancel")));
  const removeButton = h("button", {
    id: "remove", type: "button", class: "danger",
    onclick: () => { confirmBox.hidden = false; document.getElementById("confirm-remove-no").focus(); },
  }, t("remove"));

  const family = watchFamily(watch);
  main.replaceChildren(h("article", { id: "parcel", class: `parcel family-${family}`, "data-number": watch.number },
    h("p", {}, h("a", { href: "/" }, `← ${t("back")}`)),
    // The status in words first (a parcel going back says so), then the forecast, then whose parcel it is.
    h("div", { class: "parcel-head" },
      h("h1", { id: "parcel-status", class: `status-lead family-${family}` },
        goesBack(watch) ? `${t(`family.${family}`)}（${statusLabel(status)}）`
          : status ? statusLabel(status) : t("family.pending")),
      deliveryWindow(shipment && shipment.scheduled_delivery)
        ? h("p", { id: "parcel-window", class: "lead-window" },
          `${t("scheduled")}: ${deliveryWindow(shipment.scheduled_delivery)}`) : estimateLine(watch, shipment),
      h("p", { class: "parcel-name" }, h("strong", {}, title), watch.label ? ` · ${formatNumber(watch.number)}` : "",
        " ", carrierChip(carrierOf(watch))),
      // What the person can do comes first, above the fold on a phone.
      changeDeliveryLink(watch),
      watch.missed_delivery ? nextStep(watch.missed_delivery) : null,
      watch.page_not_understood_since
        ? h("p", { id: "parcel-unreadable", class: "lead-unreadable", role: "status" },
          t("pageNotUnderstoodLong", { when: relativeTime(watch.page_not_understood_since) }))
        : null),
    progress(shipment, true),
    facts([
      [t("number"), formatNumber(watch.number)],
      [t("summary"), carrierWords(status && status.summary)],
      [t("note"), carrierWords(status && status.note)],
      [t("product"), shipment && shipment.product],
      [t("scheduled"), deliveryWindow(shipment && shipment.scheduled_delivery)],
      [t(watch.missed_delivery ? "requestedBefore" : "requested"), deliveryWindow(shipment && shipment.requested_delivery)],
      [t("shipDate"), shipment && shipment.ship_date ? formatDate(shipment.ship_date) : null],
      [t("askAt"), asksToCall(shipment) ? offices(shipment.offices) : null],
      [t("lastChecked"), watch.checked_at ? `${formatTime(watch.checked_at)} (${relativeTime(watch.checked_at)})` : t("neverChecked")],
      [t("mailSource"), watch.source ? [watch.source.subject, watch.source.from, watch.source.date].filter(Boolean).join(" · ") : null],
    ]),
    h("div", { class: "actions" }, refresh, removeButton, carrierSite(carrierOf(watch), watch.number)),
    confirmBox, pushControl(watch.number),
    h("section", { "aria-labelledby": "timeline-title" }, h("h2", { id: "timeline-title" }, t("timeline")), timeline(shipment)),
    recordSection(watch),
    noticeSection(watch),
    h("section", { "aria-labelledby": "changes-title" }, h("h2", { id: "changes-title" }, t("changes")), changeLog(changes)),
    h("section", { "aria-labelledby": "webhook-title", id: "webhook-section" }, h("h2", { id: "webhook-title" }, t("webhookTitle")),
      webhookForm(watch),
      watch.webhook_url ? deliveryLog(deliveries) : null)));
}

async function removeParcel(digits) {
  if (state.parcel) state.parcel.removing = true; // no poll asks for it once it is gone
  try {
    await request(watchPath(digits), { method: "DELETE" });
    state.message = t("removed", { number: formatNumber(digits) });
    state.etag = null;
    if (state.watches) state.watches = state.watches.filter((watch) => watch.number !== digits);
    navigate("/");
  } catch (error) {
    if (state.parcel) state.parcel.removing = false;
    explain(error, { action: true });
  }
}

/**
 * Until every newly added parcel has its first check (at most 30 s), the list is asked for twice a second,
 * so a new parcel's status appears as soon as it is recorded rather than at the next regular poll.
 */
let awaiting = null;
function awaitFirstChecks() {
  if (awaiting) return;
  const started = Date.now();
  awaiting = setInterval(async () => {
    const unchecked = (state.watches || []).filter((w) => state.awaiting.has(w.number) && !w.checked_at);
    if (!unchecked.length || Date.now() - started > 30000 || !document.getElementById("cards")) {
      clearInterval(awaiting);
      awaiting = null;
      state.awaiting.clear();
      return;
    }
    await loadList();
  }, 500);
}

// ---- Live updates, settings, start ------------------------------------------------------------------

const pollSeconds = Math.max(2, Number(storage.get("kuroneko.pollSeconds", "20")) || 20);
const listShown = () => !document.hidden && !state.parcel && Boolean(document.getElementById("cards") || document.getElementById("table"));
function followList() { follow(listShown, loadList, pollSeconds); } // the list: what changed, as it changes
function poll() { if (!document.hidden && state.parcel && !state.parcel.removing) loadParcel(); } // a parcel's page
setInterval(poll, pollSeconds * 1000);
document.addEventListener("visibilitychange", () => { if (!document.hidden) { poll(); if (listShown()) followList(); } });

function redraw() {
  translateStatic();
  if (document.getElementById("key-form")) return;
  if (state.parcel && state.parcel.watch) drawParcel();
  else if (!state.parcel) route();
}

const languageSelect = document.getElementById("lang");
languageSelect.value = language();
setLanguage(language());
languageSelect.addEventListener("change", () => { setLanguage(languageSelect.value); redraw(); });

const themeSelect = document.getElementById("theme");
themeSelect.value = storage.get("kuroneko.theme", "auto");
themeSelect.addEventListener("change", () => {
  const theme = themeSelect.value;
  storage.set("kuroneko.theme", theme);
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
});

document.getElementById("calendar-link").addEventListener("click", (event) => {
  if (storedKey()) { event.preventDefault(); showNote(t("calendarKeyed")); }
});

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => { /* the page works without it, only not offline */ });
  // A notification clicked while this page is open: the worker says which of the app's pages to show.
  navigator.serviceWorker.onmessage = (event) => {
    const path = event.data && event.data.kuroneko === "open" ? event.data.path : null;
    if (typeof path === "string" && /^\/(parcel\/[0-9A-Za-z]{10,13})?$/.test(path)) navigate(path);
  };
}

/** Whether this page has the server's carriers (a server with members answers them only once one is signed in). */
let carriersKnown = false;

/** The carriers as this server knows them; the page is drawn again when they differ from the kept copy. */
async function loadCarriers() {
  try {
    const answer = await request("/v1/carriers");
    carriersKnown = true;
    if (setCarriers(answer.data && answer.data.carriers)) redraw();
  } catch (error) { /* the kept copy (or the bare ids) is used until the list is read (knowCarriers) */ }
}

let carriersAsking = false;

/** Asks for the carriers once the list was read, when they were refused before (the page was not signed in yet). */
function knowCarriers() {
  if (carriersKnown || carriersAsking) return;
  carriersAsking = true;
  loadCarriers().finally(() => { carriersAsking = false; });
}

translateStatic();
route();
loadCarriers();
