// The parcel page's parts that stand alone: who to call, the carrier's own words, the webhook form, and the
// logs of changes and deliveries.

import { ApiError, request, watchPath } from "./api.js";
import { formatDate, formatTime, language, refusal, statusLabel, t } from "./i18n.js";
import { h } from "./views.js";

/** Whether the page asks the person to get in touch (as the server's `asksToCall`). */
export function asksToCall(shipment) {
  if (!shipment || !shipment.offices || !shipment.offices.length) return false;
  const summary = (shipment.status && shipment.status.summary) || "";
  return /お問い合わ?せ/.test(summary)
    || ["exception", "returned", "attempt_failed", "available_for_pickup"].includes(shipment.status && shipment.status.code);
}

/** The offices to call, each with its telephone as a link a phone dials. */
export function offices(list) {
  return h("ul", { id: "offices", class: "offices" }, list.map((office) => h("li", {},
    `${office.name}（${office.role}）`,
    office.telephone ? [" ", h("a", { href: `tel:${office.telephone.replace(/[^0-9+]/g, "")}` }, office.telephone)] : null)));
}

/** The carrier's own words (always Japanese): marked as Japanese, and said so on an English page. */
export function carrierWords(text) {
  if (!text) return null;
  if (language() === "ja") return text;
  return h("span", {}, h("span", { lang: "ja" }, text), " ", h("small", { class: "hint" }, t("carrierJapanese")));
}

/** The parcel's webhook, changed or cleared in place (PATCH); a new webhook's secret is shown once. */
export function webhookForm(watch) {
  const field = h("input", {
    id: "parcel-webhook-url", type: "url", inputmode: "url", autocomplete: "url", spellcheck: "false",
    value: watch.webhook_url || "", placeholder: "https://example.com/hook",
  });
  const result = h("div", { id: "webhook-result", role: "status" });
  const save = h("button", { type: "submit", id: "webhook-save" }, t("webhookSave"));
  const clear = h("button", { type: "button", id: "webhook-clear", class: "secondary", hidden: !watch.webhook_url }, t("webhookClear"));
  const send = async (value) => {
    save.disabled = true;
    clear.disabled = true;
    try {
      const answer = await request(watchPath(watch.number), { method: "PATCH", body: { webhook_url: value } });
      const lines = [h("p", {}, t(value ? "webhookSaved" : "webhookCleared"))];
      if (answer.data && answer.data.webhook_secret) {
        lines.push(h("p", { class: "secret" }, t("webhookNewSecret", { secret: answer.data.webhook_secret })));
      }
      result.replaceChildren(...lines);
      clear.hidden = !value;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      result.replaceChildren(h("p", { class: "error", role: "alert" }, refusal(error.status, error.detail, error.reason)));
    } finally {
      save.disabled = false;
      clear.disabled = false;
    }
  };
  const form = h("form", { id: "webhook-form", novalidate: true },
    h("label", { for: "parcel-webhook-url" }, t("webhookURL")), field,
    h("div", { class: "actions" }, save, clear), result);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send(field.value.trim() || null);
  });
  clear.addEventListener("click", () => { field.value = ""; send(null); });
  return form;
}

export function changeLog(changes) {
  if (!changes.length) return h("p", {}, t("noChanges"));
  return h("ol", { id: "changes", class: "log" }, changes.slice().reverse().map((change) => {
    const to = change.shipment && change.shipment.status;
    // `previous` is the status before (its code and label); the first change of a watch has none.
    const from = change.previous && change.previous.code ? change.previous : null;
    const text = from ? t("changeFrom", { from: statusLabel(from), to: statusLabel(to) }) : t("firstSeen", { to: statusLabel(to) });
    return h("li", {}, h("time", { datetime: change.created_at }, formatTime(change.created_at)), " ", text);
  }));
}

export function deliveryLog(deliveries) {
  if (!deliveries.length) return h("p", {}, t("noDeliveries"));
  return h("ol", { id: "deliveries", class: "log" }, deliveries.slice().reverse().map((delivery) =>
    h("li", {}, h("time", { datetime: delivery.at || "" }, formatTime(delivery.at)), ` ${delivery.state}`,
      delivery.status ? ` · HTTP ${delivery.status}` : "", delivery.error ? ` · ${delivery.error}` : "")));
}

/**
 * For a parcel on its way without the carrier's planned day: when it is likely to come, learnt from the list's own
 * delivered parcels, said as an estimate (「だいたい 12月5日（金）ごろ（過去の荷物から）」); nothing when there is none.
 */
export function estimateLine(watch, shipment) {
  const line = h("p", { id: "parcel-estimate", class: "lead-window", hidden: true });
  if (!watch.active || (shipment && (shipment.scheduled_delivery || shipment.requested_delivery))) return line;
  request(`${watchPath(watch.number)}/estimate`).then((answer) => {
    const estimate = answer.data && answer.data.estimate;
    if (!estimate) return;
    const values = {
      day: formatDate(estimate.day), range: `${formatDate(estimate.earliest)}–${formatDate(estimate.latest)}`,
      parcels: estimate.parcels,
    };
    line.textContent = t(estimate.earliest === estimate.latest ? "estimate.exact" : "estimate.line", values);
    line.hidden = false;
  }).catch(() => { /* an estimate is extra: the page stands without it */ });
  return line;
}
