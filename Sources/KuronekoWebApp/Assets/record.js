// What the shop or household knows of a parcel (its record) on the parcel page, its note and handled mark
// changed in place (PATCH, part by part). The card's line of it is `cardRecord` in views.js.

import { ApiError, request, watchPath } from "./api.js";
import { formatDate, formatTime, refusal, t } from "./i18n.js";
import { facts, h } from "./views.js";

/** The parcel page's section: the record's parts, then the note and handled mark, saved together. */
/** The recipient's address in one line: 〒 and the postcode, then the address (the prefecture when the address
 * does not begin with it, or alone when there is no address). */
function addressLine(recipient) {
  const place = recipient.address
    ? (recipient.prefecture && !recipient.address.startsWith(recipient.prefecture) ? recipient.prefecture : "") + recipient.address
    : recipient.prefecture;
  return [recipient.postcode && `〒${recipient.postcode}`, place].filter(Boolean).join(" ");
}

export function recordSection(watch) {
  const record = watch.record || {};
  const recipient = record.recipient || {};
  const telephone = recipient.telephone
    ? h("a", { href: `tel:${recipient.telephone.replace(/[^0-9+]/g, "")}` }, recipient.telephone) : null;
  const known = facts([
    [t("reference"), record.reference],
    [t("recipient"), recipient.name],
    [t("telephone"), telephone],
    [t("email"), recipient.email],
    [t("address"), addressLine(recipient)],
    [t("shippedOn"), record.shipped_on ? formatDate(record.shipped_on) : null],
    ...(record.fields || []).map((field) => [field.name, field.value]),
  ]);
  const note = h("textarea", { id: "record-note", rows: 3, maxlength: 1000 });
  note.value = record.note || "";
  const handled = h("input", { id: "record-handled", type: "checkbox" });
  handled.checked = Boolean(record.handled);
  const handledBy = h("small", { class: "hint", id: "record-handled-by" },
    record.handled ? t("handledBy", { when: formatTime(record.handled.at), by: record.handled.by }) : "");
  const result = h("div", { id: "record-result", role: "status" });
  const save = h("button", { type: "submit", id: "record-save" }, t("recordSave"));
  const form = h("form", { id: "record-form", novalidate: true },
    h("label", { for: "record-note" }, t("recordNote")), note,
    h("label", { class: "check" }, handled, " ", t("handled")), handledBy,
    h("div", { class: "actions" }, save), result);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    save.disabled = true;
    try {
      const body = { record: { note: note.value.trim() || null, handled: handled.checked } };
      const answer = await request(watchPath(watch.number), { method: "PATCH", body });
      const kept = (answer.data && answer.data.record) || {};
      handledBy.textContent = kept.handled ? t("handledBy", { when: formatTime(kept.handled.at), by: kept.handled.by }) : "";
      result.replaceChildren(h("p", {}, t("recordSaved")));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      result.replaceChildren(h("p", { class: "error", role: "alert" }, refusal(error.status, error.detail, error.reason)));
    } finally {
      save.disabled = false;
    }
  });
  return h("section", { "aria-labelledby": "record-title", id: "record-section" },
    h("h2", { id: "record-title" }, t("recordTitle")), known, form);
}
