// Building the page's parts. Everything from the server goes in as text, never as markup.

import { formatDate, formatTime, language, relativeTime, statusLabel, t } from "./i18n.js";
import { formatNumber } from "./numbers.js";
import { STEPS, familyOf, stepOf } from "./status.js";

/** An element: `h("p", {class: "x"}, "text", child)`; attributes starting with "on" become listeners. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** The families the server knows better than the latest status: a number not registered yet, a parcel going back. */
const SERVER_FAMILIES = new Set(["waiting", "returning", "returned"]);

/** A watch's family: the server's where it tells more than the status (a parcel going back to its sender
 * whose latest row says 輸送中 is returning, not in transit), else its status's. */
export function watchFamily(watch) {
  // Held after a missed delivery, the recipient must act: a problem, whatever the status's own family.
  if (watch.missed_delivery) return "problem";
  return SERVER_FAMILIES.has(watch.family) ? watch.family : familyOf(watch.shipment && watch.shipment.status);
}

/** Today's date in Japan, `YYYY-MM-DD`. */
export function todayInJapan(now = Date.now()) {
  return new Date(now + 9 * 3600 * 1000).toISOString().slice(0, 10);
}

/**
 * Whether the parcel comes today: the server's `planned_day` is today (the day it went out while out for delivery,
 * else the day the recipient asked for, else the carrier's). The one meaning of today of the 今日 chip, the morning
 * summary and Home Assistant.
 */
export function arrivesToday(watch, today = todayInJapan()) {
  return watch.active && !goesBack(watch) && watch.planned_day === today;
}

/** Whether the parcel is on its way back to its sender, or back with it. */
export function goesBack(watch) {
  return watch.family === "returning" || watch.family === "returned";
}

/** The badge with a status's label, coloured by its family (`family`: the watch's, from `watchFamily`). */
export function badge(status, family = familyOf(status)) {
  const text = family === "returning" || family === "returned" ? t(`family.${family}`)
    : status ? statusLabel(status) : t("family.pending");
  return h("span", { class: `badge family-${family}`, title: t(`family.${family}`) }, text);
}

/** Five segments along accepted → shipped → in transit → out for delivery → delivered; `named` puts each
 * step's name under its segment (the parcel page). */
export function progress(shipment, named = false) {
  const step = stepOf(shipment);
  const label = step < 0 ? t("progressNone") : t("progress", { step: step + 1, name: t(`family.${STEPS[step]}`) });
  const family = familyOf(shipment && shipment.status);
  const bar = h("div", { class: `progress family-${family}`, role: "img", "aria-label": label },
    STEPS.map((name, index) => h("span", { class: index <= step ? "done" : "" })));
  if (!named) return bar;
  return h("div", { class: "progress-named" }, bar,
    h("ol", { class: "steps", id: "steps", "aria-hidden": "true" },
      STEPS.map((name, index) => h("li", { class: index === step ? "current" : index < step ? "done" : "" },
        t(`family.${name}`)))));
}

function lastEvent(shipment) {
  const events = (shipment && shipment.events) || [];
  return events.length ? events[events.length - 1] : null;
}

/** A forecast or a requested window: its date and hours, `by 10:00` for a deadline alone, else as printed. */
export function deliveryWindow(scheduled) {
  if (!scheduled) return null;
  const hours = scheduled.window_start ? `${scheduled.window_start}–${scheduled.window_end || ""}`
    : scheduled.window_end ? t("until", { time: scheduled.window_end }) : "";
  if (!scheduled.date) return hours || scheduled.raw || null;
  return hours ? `${formatDate(scheduled.date)} ${hours}` : formatDate(scheduled.date);
}

/** The forecast and, beside it, the window the recipient asked for: "Delivery window: … · Requested: …". */
function windows(shipment, missed) {
  // After a missed delivery the slot asked for before is past: it is not shown as if a redelivery were booked.
  const parts = [
    [t("scheduled"), deliveryWindow(shipment && shipment.scheduled_delivery)],
    [t("requested"), missed ? null : deliveryWindow(shipment && shipment.requested_delivery)],
  ].filter(([, value]) => value);
  return parts.length ? parts.map(([name, value]) => `${name}: ${value}`).join(" · ") : null;
}

/** One parcel in the list: a link to its page. */
export function card(watch) {
  const shipment = watch.shipment;
  const event = lastEvent(shipment);
  const window = windows(shipment, watch.missed_delivery);
  const title = watch.label || formatNumber(watch.number);
  // The server's family where it says more: a number not registered yet is waiting, not a problem.
  const family = watchFamily(watch);
  return h("li", { class: `card family-${family}`, "data-number": watch.number },
    h("a", { class: "card-link", href: `/parcel/${watch.number}` },
      h("span", { class: "card-head" },
        h("h3", { class: "card-title" }, title),
        badge(shipment && shipment.status, family)),
      watch.label ? h("span", { class: "card-number" }, formatNumber(watch.number)) : null,
      cardRecord(watch),
      // The carrier beside the progress: a card stays short on a phone's first screen.
      h("div", { class: "card-meta" }, carrierChip(carrierOf(watch)), progress(shipment)),
      h("span", { class: "card-event" },
        event ? `${formatTime(event.at)} · ${statusLabel(event)}${event.place ? ` · ${event.place}` : ""}` : t("noEvents")),
      window ? h("span", { class: "card-window" }, window) : null,
      watch.stalled_since ? h("span", { class: "card-stalled" }, t("stalledSince", { when: relativeTime(watch.stalled_since) })) : null,
      watch.overdue_since ? h("span", { class: "card-overdue" }, t("overdueSince", { when: relativeTime(watch.overdue_since) })) : null,
      watch.missed_delivery ? h("span", { class: "card-kept" }, keptUntil(watch.missed_delivery), whomToCall(watch.missed_delivery)) : null,
      watch.page_not_understood_since ? h("span", { class: "card-unreadable" }, t("pageNotUnderstood")) : null,
      h("span", { class: "card-checked" },
        watch.checked_at ? t("checked", { when: relativeTime(watch.checked_at) }) : t("neverChecked"))));
}

/** The card's line: the shop's reference, the recipient's name, and whether someone has dealt with it. */
export function cardRecord(watch) {
  const record = watch.record;
  if (!record) return null;
  const parts = [record.reference, record.recipient && record.recipient.name].filter(Boolean);
  if (!parts.length && !record.handled) return null;
  return h("span", { class: "card-record" }, parts.join(" · "),
    record.handled ? h("span", { class: "handled-mark" }, t("handled")) : null);
}

/** "Kept until 12/9": how long the carrier keeps a parcel after a missed delivery. */
export function keptUntil(missed) {
  const [, month, day] = missed.kept_until.split("-").map(Number);
  return t(missed.cool ? "keptUntilCool" : "keptUntil", { month, day });
}

/** On a card (itself a link, so no tel: link inside): " · 城南営業所 03-…", whom to call after a missed delivery. */
function whomToCall(missed) {
  const office = missed.office;
  return office && office.telephone ? ` · ${office.name} ${office.telephone}` : "";
}

/** After a missed delivery, what to do: until when it is kept, and where to ask for it again (the carrier's
 * page above, or the office's telephone, which a phone dials). */
export function nextStep(missed) {
  const office = missed.office && missed.office.telephone ? missed.office : null;
  return h("p", { id: "next-step", class: "next-step", role: "note" }, keptUntil(missed), t("sentenceEnd"),
    office ? [t("askRedeliveryOrCall", { office: office.name }), " ",
      h("a", { href: `tel:${office.telephone.replace(/[^0-9+]/g, "")}` }, office.telephone)]
      : t("askRedelivery"));
}

/** A parcel's history, newest first. */
export function timeline(shipment) {
  const events = ((shipment && shipment.events) || []).slice().reverse();
  if (!events.length) return h("p", {}, t("noEvents"));
  return h("table", { id: "timeline", class: "timeline" },
    h("caption", { class: "visually-hidden" }, t("timeline")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("time")), h("th", { scope: "col" }, t("status")),
      h("th", { scope: "col" }, t("place")))),
    h("tbody", {}, events.map((event) => h("tr", {},
      h("td", {}, event.at ? formatTime(event.at) : event.date_text || ""),
      h("td", {}, h("span", { class: `dot family-${familyOf(event)}` }), statusLabel(event)),
      h("td", {}, event.place || "")))));
}

/**
 * The carriers as the server describes them (`GET /v1/carriers`: names, colours, the links to a parcel on the
 * carrier's own site), by id; the last answer is kept in this browser, so a page opened offline still names them.
 */
const CARRIERS_STORAGE = "kuroneko.carriers";
let carriers = new Map();

function rememberCarriers(list) {
  carriers = new Map(list.filter((carrier) => carrier && typeof carrier.id === "string").map((carrier) => [carrier.id, carrier]));
}

try { rememberCarriers(JSON.parse(localStorage.getItem(CARRIERS_STORAGE) || "[]")); } catch (e) { /* none kept */ }

/** Takes the server's list of carriers (and keeps it for the next visit); true when it differs from the kept one. */
export function setCarriers(list) {
  if (!Array.isArray(list)) return false;
  const text = JSON.stringify(list);
  let kept = null;
  try { kept = localStorage.getItem(CARRIERS_STORAGE); } catch (e) { /* no storage */ }
  rememberCarriers(list);
  try { localStorage.setItem(CARRIERS_STORAGE, text); } catch (e) { /* kept for this page only */ }
  return kept !== text;
}

/** A carrier's name in the page's language; its id while the server's list is not known. */
export function carrierName(id) {
  const carrier = carriers.get(id);
  if (!carrier) return id;
  return language() === "ja" ? carrier.name : carrier.english_name;
}

/** Whose parcel it is: the watch's carrier, else its shipment's; `null` while not known. */
export function carrierOf(watch) {
  return watch.carrier || (watch.shipment && watch.shipment.status.code !== "not_found" && watch.shipment.carrier) || null;
}

/** The carrier's name, on its colour. */
export function carrierChip(carrier) {
  const chip = h("span", { class: `carrier${carrier ? "" : " carrier-unknown"}`, "data-carrier": carrier || "" },
    carrier ? carrierName(carrier) : t("carrier.unknown"));
  const colors = carriers.get(carrier) && carriers.get(carrier).colors;
  if (colors) {
    chip.style.setProperty("--carrier-bg", colors.background);
    chip.style.setProperty("--carrier-fg", colors.text);
  }
  return chip;
}

/** A link template's address for one number (`{number}` stands for its digits). */
function filled(template, digits) {
  return template.replaceAll("{number}", encodeURIComponent(digits));
}

/**
 * The parcel on its carrier's own site: a link, or a form where the carrier's page answers a POST only
 * (Yamato's).
 */
export function carrierSite(carrier, digits) {
  const known = carriers.get(carrier);
  const link = known && known.tracking_link;
  if (!link) return null;
  const label = t("openOnSite", { name: carrierName(carrier) });
  if (link.method === "post") {
    const fields = Object.entries(link.fields || {}).map(([name, value]) =>
      h("input", { type: "hidden", name, value: value.replaceAll("{number}", digits) }));
    return h("form", {
      id: "carrier-site", method: "post", action: link.url, target: "_blank", rel: "noopener noreferrer",
    }, ...fields, h("button", { type: "submit", class: "link-button" }, label));
  }
  return h("a", {
    id: "carrier-site", href: filled(link.url, digits), target: "_blank", rel: "noopener noreferrer", class: "link-button",
  }, label);
}

/** Statuses that need the recipient: brought back, held for pickup, under investigation, returned. */
const NEEDS_RECIPIENT = new Set(["attempt_failed", "available_for_pickup", "exception", "returned"]);

/**
 * For a parcel that needs its recipient, the way to change the delivery: the address of the carrier page's
 * own 詳細確認／日時・場所変更 button when it had one, else the carrier's redelivery page.
 */
export function changeDeliveryLink(watch, onCard = false) {
  const shipment = watch.shipment;
  // Going back to the sender: there is no delivery left to change.
  if (!shipment || goesBack(watch) || !NEEDS_RECIPIENT.has(shipment.status && shipment.status.code)) return null;
  const known = carriers.get(carrierOf(watch));
  const redelivery = known && known.redelivery_link;
  const fallback = redelivery && redelivery.method === "get" ? filled(redelivery.url, watch.number) : null;
  const address = shipment.change_delivery_url || fallback;
  if (!address) return null;
  // On a card, the action sits beside the card's own link (links do not nest) and names the parcel.
  return h("p", { class: onCard ? "change-delivery card-action" : "change-delivery" }, h("a", {
    id: onCard ? null : "change-delivery", href: address, target: "_blank", rel: "noopener noreferrer",
    class: "link-button primary",
    "aria-label": onCard ? `${t("changeDelivery")}: ${watch.label || formatNumber(watch.number)}` : null,
  }, t(onCard ? "changeDeliveryShort" : "changeDelivery")));
}

/** A definition list of the fields that have a value. */
export function facts(pairs) {
  const shown = pairs.filter(([, value]) => value);
  return h("dl", { class: "facts" }, shown.map(([name, value]) => [h("dt", {}, name), h("dd", {}, value)]));
}
