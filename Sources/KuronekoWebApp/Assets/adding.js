// Adding parcels in bulk: a saved shipping mail, and many numbers in as few requests as the server takes.

import { ApiError, request } from "./api.js";
import { refusal, t } from "./i18n.js";
import { formatNumber } from "./numbers.js";
import { h } from "./views.js";

/** The largest saved mail the server takes. */
const MAIL_BYTES = 4 * 1024 * 1024;

/**
 * Sends a chosen file's bytes as they are. - Returns: the answer, or null when it was refused: the refusal is
 * then put in words into `result` (after the file's name, when `named`), or `onKey` called for a key.
 */
export async function sendFile(path, file, rawType, { result, onKey, named = false }) {
  try {
    return await request(path, { method: "POST", raw: await file.arrayBuffer(), rawType });
  } catch (error) {
    if (error instanceof ApiError && error.kind === "key") { onKey(error); return null; }
    const detail = error.kind === "offline" ? t("offlineNothing") : refusal(error.status, error.detail, error.reason);
    result.replaceChildren(h("p", { class: "error" }, named ? `${file.name}: ${detail}` : detail));
    return null;
  }
}

/**
 * A saved shipping mail (.eml) chosen or dropped: its parcels are watched, and what came of it said in `result`;
 * `onKey` is called when the server asks for a key, `added` with the numbers added.
 */
export function mailField(result, { onKey, added: whenAdded }) {
  const input = h("input", { id: "mail-file", type: "file", accept: ".eml,message/rfc822", "aria-describedby": "mail-hint" });
  const send = async (file) => {
    if (!file) return;
    if (file.size > MAIL_BYTES) {
      result.replaceChildren(h("p", { class: "error" }, t("mailTooLarge", { name: file.name })));
      return;
    }
    result.replaceChildren(h("p", {}, t("mailReading", { name: file.name })));
    const answer = await sendFile("/v1/watches/from-mail", file, "message/rfc822", { result, onKey });
    input.value = "";
    if (!answer) return;
    const parcels = (answer.data && Array.isArray(answer.data.parcels)) ? answer.data.parcels : [];
    const added = parcels.filter((parcel) => parcel.status === 201);
    const existing = parcels.filter((parcel) => parcel.status === 200);
    const failed = parcels.filter((parcel) => parcel.status !== 201 && parcel.status !== 200);
    const lines = [];
    if (added.length) lines.push(t("mailAdded", { n: added.length, numbers: added.map((p) => formatNumber(p.number)).join(", ") }));
    if (existing.length) lines.push(t("alreadyThere", { n: existing.length }));
    if (answer.data && answer.data.more_parcels) lines.push(t("mailMore", { n: parcels.length }));
    if (!parcels.length) {
      lines.push(answer.data && answer.data.no_trackable ? t("mailOwnDelivery", { who: answer.data.no_trackable }) : t("mailNothing"));
    }
    result.replaceChildren(...lines.map((line) => h("p", {}, line)),
      ...failed.map((parcel) => h("p", { class: "error" }, t("addFailed", { number: formatNumber(parcel.number), detail: refusal(parcel.status, parcel.detail, parcel.reason) }))));
    await whenAdded(added.map((parcel) => parcel.number));
  };
  input.addEventListener("change", () => send(input.files && input.files[0]));
  const zone = h("div", { id: "mail-drop", class: "mail-drop" },
    h("label", { for: "mail-file" }, t("mailLabel")), input,
    h("p", { id: "mail-hint", class: "hint" }, t("mailHint")));
  zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("dragging"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("dragging");
    send(event.dataTransfer && event.dataTransfer.files && event.dataTransfer.files[0]);
  });
  return zone;
}

/**
 * Pasted lines that are not numbers alone (a line of a mail, a chat message), read by the server by the mail
 * reader's rules; the outcome as `addAll`'s, with `found`: the numbers it read.
 */
export async function addFromText(text, onKey) {
  const outcome = { created: 0, existing: 0, failed: [], secrets: [], stop: false, found: [] };
  let answer;
  try {
    answer = await request("/v1/watches/from-text", { method: "POST", raw: new TextEncoder().encode(text.slice(0, 20000)), rawType: "text/plain; charset=utf-8" });
  } catch (error) {
    if (error instanceof ApiError && error.kind === "key") { outcome.stop = true; onKey(error); return outcome; }
    outcome.failed.push({ digits: text.slice(0, 40), detail: error.kind === "offline" ? t("offlineNothing") : refusal(error.status, error.detail, error.reason) });
    return outcome;
  }
  const parcels = (answer.data && Array.isArray(answer.data.parcels)) ? answer.data.parcels : [];
  for (const parcel of parcels) {
    outcome.found.push(parcel.number);
    if (parcel.status === 201) outcome.created += 1;
    else if (parcel.status === 200) outcome.existing += 1;
    else outcome.failed.push({ digits: parcel.number, detail: refusal(parcel.status, parcel.detail, parcel.reason) });
  }
  return outcome;
}

/** The most bytes of one bulk add: the server takes bodies of up to 64 KiB. */
const BULK_BYTES = 60000;

/**
 * Adds the numbers in as few requests as the server takes (up to 1,000 a request, within its body limit),
 * one after another; returns counts, webhook secrets and failures, each failure in the page's language;
 * `onKey` is called when the server asks for a key.
 */
export async function addAll(digitsList, label, webhookURL, onKey) {
  const outcome = { created: 0, existing: 0, failed: [], secrets: [], stop: false };
  const encoder = new TextEncoder();
  const items = digitsList.map((digits) => {
    const item = { number: digits };
    if (label) item.label = label;
    if (webhookURL) item.webhook_url = webhookURL;
    return item;
  });
  const batches = [];
  let batch = [];
  let bytes = 2;
  for (const item of items) {
    const size = encoder.encode(JSON.stringify(item)).length + 1;
    if (batch.length && (batch.length === 1000 || bytes + size > BULK_BYTES)) { batches.push(batch); batch = []; bytes = 2; }
    batch.push(item);
    bytes += size;
  }
  if (batch.length) batches.push(batch);
  for (const sent of batches) {
    let results;
    try {
      const answer = await request("/v1/watches", { method: "POST", body: sent });
      results = answer.data && Array.isArray(answer.data.results) ? answer.data.results : [];
      // An answer that is not one result per number sent (a proxy's page, say) adds nothing the page can show.
      if (results.length !== sent.length) {
        throw new ApiError("server", 500, `an answer without one result per number (HTTP ${answer.status})`);
      }
    } catch (error) {
      if (error instanceof ApiError && error.kind === "key") { outcome.stop = true; onKey(error); return outcome; }
      const detail = error.kind === "offline" ? t("offlineNothing") : refusal(error.status, error.detail, error.reason);
      outcome.failed.push(...sent.map((item) => ({ digits: item.number, detail })));
      continue;
    }
    results.forEach((answer, index) => {
      const digits = sent[index].number;
      if (answer.status === 201 || answer.status === 200) {
        if (answer.status === 201) outcome.created += 1; else outcome.existing += 1;
        if (answer.watch && answer.watch.webhook_secret) {
          outcome.secrets.push(t("webhookSecret", { number: formatNumber(digits), secret: answer.watch.webhook_secret }));
        }
      } else {
        outcome.failed.push({ digits, detail: refusal(answer.status, answer.detail, answer.reason) });
      }
    });
  }
  return outcome;
}
