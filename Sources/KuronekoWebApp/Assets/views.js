// Building the page's parts. Everything from the server goes in as text, never as markup.

import { formatDate, formatTime, relativeTime, statusLabel, t } from "./i18n.js";
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

/** The badge with a status's label, coloured by its family. */
export function badge(status, waiting = false) {
  const family = waiting ? "waiting" : familyOf(status);
  const text = status ? statusLabel(status) : t("family.pending");
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
function windows(shipment) {
  const parts = [
    [t("scheduled"), deliveryWindow(shipment && shipment.scheduled_delivery)],
    [t("requested"), deliveryWindow(shipment && shipment.requested_delivery)],
  ].filter(([, value]) => value);
  return parts.length ? parts.map(([name, value]) => `${name}: ${value}`).join(" · ") : null;
}

/** One parcel in the list: a link to its page. */
export function card(watch) {
  const shipment = watch.shipment;
  const event = lastEvent(shipment);
  const window = windows(shipment);
  const title = watch.label || formatNumber(watch.number);
  // The server's family where it says one: a number not registered yet is waiting, not a problem.
  const waiting = watch.family === "waiting";
  return h("li", { class: `card family-${waiting ? "waiting" : familyOf(shipment && shipment.status)}`, "data-number": watch.number },
    h("a", { class: "card-link", href: `/parcel/${watch.number}` },
      h("span", { class: "card-head" },
        h("h3", { class: "card-title" }, title),
        badge(shipment && shipment.status, waiting)),
      carrierChip(carrierOf(watch)),
      watch.label ? h("span", { class: "card-number" }, formatNumber(watch.number)) : null,
      progress(shipment),
      h("span", { class: "card-event" },
        event ? `${formatTime(event.at)} · ${statusLabel(event)}${event.place ? ` · ${event.place}` : ""}` : t("noEvents")),
      window ? h("span", { class: "card-window" }, window) : null,
      watch.stalled_since ? h("span", { class: "card-stalled" }, t("stalledSince", { when: relativeTime(watch.stalled_since) })) : null,
      watch.page_not_understood_since ? h("span", { class: "card-unreadable" }, t("pageNotUnderstood")) : null,
      h("span", { class: "card-checked" },
        watch.checked_at ? t("checked", { when: relativeTime(watch.checked_at) }) : t("neverChecked"))));
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

/** The form that opens the parcel on Yamato's own page (it answers a POST only). */
/** Whose parcel it is: the watch's carrier, else its shipment's; `null` while not known. */
export function carrierOf(watch) {
  return watch.carrier || (watch.shipment && watch.shipment.status.code !== "not_found" && watch.shipment.carrier) || null;
}

/** The carrier's name, in its colour. */
export function carrierChip(carrier) {
  const name = carrier ? t(`carrier.${carrier}`) : t("carrier.unknown");
  return h("span", { class: `carrier carrier-${carrier || "unknown"}`, "data-carrier": carrier || "" }, name);
}

/** The parcel on its carrier's own site: Yamato's form (a POST), Sagawa's and Japan Post's pages (links). */
export function carrierSite(carrier, digits) {
  if (carrier === "sagawa") {
    return h("a", {
      id: "carrier-site", href: `https://k2k.sagawa-exp.co.jp/p/web/okurijosearch.do?okurijoNo=${encodeURIComponent(digits)}`,
      target: "_blank", rel: "noopener noreferrer", class: "link-button",
    }, t("sagawa"));
  }
  if (carrier === "japanpost") {
    return h("a", {
      id: "carrier-site",
      href: `https://trackings.post.japanpost.jp/services/srv/search/direct?reqCodeNo1=${encodeURIComponent(digits)}&searchKind=S002&locale=ja`,
      target: "_blank", rel: "noopener noreferrer", class: "link-button",
    }, t("japanpost"));
  }
  return carrier === "yamato" ? yamatoForm(digits) : null;
}

/** Statuses that need the recipient: brought back, held for pickup, under investigation, returned. */
const NEEDS_RECIPIENT = new Set(["attempt_failed", "available_for_pickup", "exception", "returned"]);

/**
 * For a parcel that needs its recipient, the way to change the delivery: the address of the carrier page's
 * own 詳細確認／日時・場所変更 button when it had one, else the carrier's redelivery page.
 */
export function changeDeliveryLink(watch, onCard = false) {
  const shipment = watch.shipment;
  if (!shipment || !NEEDS_RECIPIENT.has(shipment.status && shipment.status.code)) return null;
  const digits = encodeURIComponent(watch.number);
  const fallback = {
    yamato: `https://member.kms.kuronekoyamato.co.jp/parcel/detail?pno=${digits}`,
    sagawa: `https://k2k.sagawa-exp.co.jp/p/web/okurijosearch.do?okurijoNo=${digits}`,
    japanpost: "https://trackings.post.japanpost.jp/delivery/deli/",
  }[carrierOf(watch)];
  const address = shipment.change_delivery_url || fallback;
  if (!address) return null;
  // On a card, the action sits beside the card's own link (links do not nest) and names the parcel.
  return h("p", { class: onCard ? "change-delivery card-action" : "change-delivery" }, h("a", {
    id: onCard ? null : "change-delivery", href: address, target: "_blank", rel: "noopener noreferrer",
    class: "link-button primary",
    "aria-label": onCard ? `${t("changeDelivery")}: ${watch.label || formatNumber(watch.number)}` : null,
  }, t("changeDelivery")));
}

export function yamatoForm(digits) {
  return h("form", {
    id: "yamato-form", method: "post", action: "https://toi.kuronekoyamato.co.jp/cgi-bin/tneko",
    target: "_blank", rel: "noopener noreferrer",
  },
  h("input", { type: "hidden", name: "number00", value: "1" }),
  h("input", { type: "hidden", name: "number01", value: digits }),
  h("button", { type: "submit", class: "link-button" }, t("yamato")));
}

/** A definition list of the fields that have a value. */
export function facts(pairs) {
  const shown = pairs.filter(([, value]) => value);
  return h("dl", { class: "facts" }, shown.map(([name, value]) => [h("dt", {}, name), h("dd", {}, value)]));
}
