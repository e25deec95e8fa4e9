// The add form: numbers typed or pasted (checked as they are typed), a label, a webhook, a saved shipping mail.

import { addAll, addFromText, mailField } from "./adding.js";
import { sheetField } from "./sheet-import.js";
import { t } from "./i18n.js";
import { checkNumber, formatNumber, splitNumbers } from "./numbers.js";
import { h } from "./views.js";

/**
 * The form; what it adds is in the list after `loadList()`, and `awaitFirstChecks()` follows their first checks.
 * `state` holds the message left for the form and the numbers awaiting a first check.
 */
export function addForm({ state, loadList, awaitFirstChecks, showKeyForm }) {
  const numbers = h("textarea", {
    id: "numbers", name: "numbers", rows: "2", autocomplete: "off", spellcheck: "false", inputmode: "numeric",
    "aria-describedby": "numbers-hint number-errors",
  });
  const errors = h("ul", { id: "number-errors", class: "errors", "aria-live": "polite" });
  const ready = h("span", { id: "ready-count", class: "hint" });
  const label = h("input", { id: "label", name: "label", maxlength: "200", autocomplete: "off" });
  const webhook = h("input", { id: "webhook-url", name: "webhook_url", type: "url", inputmode: "url" });
  const button = h("button", { id: "add-button", type: "submit" }, t("add"));
  const result = h("div", { id: "add-result", role: "status" }, state.message);
  state.message = "";
  const validate = () => {
    const checks = splitNumbers(numbers.value).map(checkNumber);
    const bad = checks.filter((check) => check.error);
    const words = (check) => (check.error.code === "notDigits" && /[0-9]/.test(check.input) ? "readAsText" : check.error.code);
    errors.replaceChildren(...bad.map((check) => h("li", {}, t(`error.${words(check)}`, { input: check.input, ...check.error }))));
    numbers.setAttribute("aria-invalid", bad.length ? "true" : "false");
    const good = checks.length - bad.length;
    ready.textContent = good ? t("readyCount", { n: good }) : "";
    return checks;
  };
  numbers.addEventListener("input", validate);

  const form = h("form", { id: "add-form", class: "panel", novalidate: true },
    h("h2", { id: "add-title" }, t("addTitle")),
    h("label", { for: "numbers" }, t("numbersLabel")), numbers,
    h("p", { id: "numbers-hint", class: "hint" }, t("numbersHint")), errors,
    h("div", { class: "row" },
      h("span", { class: "grow" }, h("label", { for: "label" }, t("labelLabel")), label),
      h("span", { class: "actions" }, ready, button)),
    h("details", { id: "more-options" }, h("summary", {}, t("moreOptions")), h("label", { for: "webhook-url" }, t("webhookLabel")), webhook),
    mailField(result, {
      onKey: showKeyForm,
      added: async (numbers) => {
        state.etag = null;
        for (const number of numbers) state.awaiting.add(number);
        await loadList();
        awaitFirstChecks();
      },
    }),
    sheetField({ onKey: showKeyForm, imported: async () => { state.etag = null; await loadList(); } }),
    result);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const checks = validate();
    const good = [...new Set(checks.filter((check) => !check.error).map((check) => check.digits))];
    // A line with words and digits (copied from a mail) is read by the server, by the mail reader's rules.
    const texts = checks.filter((check) => check.error && check.error.code === "notDigits" && /[0-9]/.test(check.input));
    if (!good.length && !texts.length) { numbers.focus(); return; }
    [button.disabled, button.textContent] = [true, t("adding")];
    const outcome = good.length ? await addAll(good, label.value.trim(), webhook.value.trim(), showKeyForm) : { created: 0, existing: 0, failed: [], secrets: [] };
    const read = texts.length && !outcome.stop ? await addFromText(texts.map((check) => check.input).join("\n"), showKeyForm) : null;
    [button.disabled, button.textContent] = [false, t("add")];
    if (outcome.stop || (read && read.stop)) return;
    if (read) { outcome.created += read.created; outcome.existing += read.existing; outcome.failed.push(...read.failed); }
    // What could not be added stays in the field, so it can be corrected (a line read for its numbers goes).
    numbers.value = checks.filter((check) => check.error && !(read && read.found.length && texts.includes(check)))
      .map((check) => check.input).concat(outcome.failed.map((failure) => failure.digits)).join("\n");
    if (!outcome.failed.length) label.value = "";
    validate();
    const lines = [];
    if (outcome.created) lines.push(t("added", { n: outcome.created }));
    if (outcome.existing) lines.push(t("alreadyThere", { n: outcome.existing }));
    result.replaceChildren(...lines.map((line) => h("p", {}, line)),
      ...outcome.secrets.map((line) => h("p", { class: "secret" }, line)),
      ...outcome.failed.map((failure) => h("p", { class: "error" }, t("addFailed", { number: formatNumber(failure.digits), detail: failure.detail }))));
    state.etag = null;
    for (const digits of good.concat(read ? read.found : [])) state.awaiting.add(digits);
    await loadList();
    awaitFirstChecks();
  });
  return form;
}
