// A shop's sheet imported from the page: the server's report in the page's language, the columns it read, and a
// way to choose other columns and import the same file again (what `kuroneko import --column ROLE=NAME` does).

import { sendFile } from "./adding.js";
import { t } from "./i18n.js";
import { h } from "./views.js";

/** The largest sheet the server takes. */
const SHEET_BYTES = 16 * 1024 * 1024;

/** The roles a column can be chosen for, in the order the page offers them. */
const ROLES = ["number", "reference", "name", "telephone", "email", "postcode", "prefecture", "address", "shipped_on", "carrier",
  "label", "note"];

/** The page's words for `key`, else `fallback` (a role or a warning the page has no words for). */
function wordsOr(key, fallback) {
  const words = t(key);
  return words === key ? fallback : words;
}

/** The report's words for a role, in the page's language. */
function roleName(role) {
  return wordsOr(`sheetRole_${role}`, role);
}

/**
 * A shop's sheet (CSV or tab-separated text, as Excel, a label tool or a marketplace saves it) chosen: the server
 * reads it as `kuroneko import --watch` does and its report is shown; `onKey` is called when the server asks for a
 * key, `imported` once it is in.
 */
export function sheetField({ onKey, imported }) {
  const input = h("input", { id: "sheet-file", type: "file", accept: ".csv,.txt,.tsv,text/csv", "aria-describedby": "sheet-hint" });
  const report = h("div", { id: "sheet-report", role: "status" });
  const send = async (file, chosen) => {
    report.replaceChildren(h("p", {}, t("sheetReading", { name: file.name })));
    const query = Object.entries(chosen).map(([role, column]) => `column=${encodeURIComponent(`${role}=${column}`)}`);
    const path = "/v1/watches/import" + (query.length ? `?${query.join("&")}` : "");
    const answer = await sendFile(path, file, "text/csv", { result: report, onKey, named: true });
    if (!answer) return;
    // replaceChildren writes a null as the text "null": only the parts the report has.
    report.replaceChildren(...reportParts(answer.data || {}, file, chosen, send).filter(Boolean));
    await imported();
  };
  input.addEventListener("change", async () => {
    const file = input.files && input.files[0];
    input.value = "";
    if (!file) return;
    if (file.size > SHEET_BYTES) {
      report.replaceChildren(h("p", { class: "error" }, t("sheetTooLarge", { name: file.name })));
      return;
    }
    await send(file, {});
  });
  return h("div", { class: "mail-drop" }, h("label", { for: "sheet-file" }, t("sheetLabel")), input,
    h("p", { id: "sheet-hint", class: "hint" }, t("sheetHint")), report);
}

/** The record parts a row's problem may name, as the chooser names their roles. */
const PARTS = { "recipient.name": "name", "recipient.telephone": "telephone", "recipient.email": "email",
  "recipient.postcode": "postcode", "recipient.prefecture": "prefecture", "recipient.address": "address",
  reference: "reference", shipped_on: "shipped_on", note: "note" };

/**
 * A row's problem in the page's language: by its code and values where the page has words for it (a part named by
 * its role's name), else the server's own line.
 */
function problemWords(text, detail) {
  if (!detail || !detail.code) return text;
  const part = detail.part ? roleName(PARTS[detail.part] || detail.part) : "";
  return wordsOr(`sheetProblem_${detail.code}`, null) === null ? text : t(`sheetProblem_${detail.code}`, { ...detail, part });
}

/** The report's parts: the counts, the layout, the warnings, the columns read, the chooser, the problems. */
function reportParts(done, file, chosen, send) {
  const problems = Array.isArray(done.problems) ? done.problems : [];
  const warnings = Array.isArray(done.warnings) ? done.warnings : [];
  const mapping = Array.isArray(done.mapping) ? done.mapping : [];
  const details = Array.isArray(done.problem_details) ? done.problem_details : [];
  return [
    h("p", { id: "sheet-summary" }, t("sheetReport", { name: file.name, rows: done.rows, watched: done.watched, existing: done.existing, skipped: done.skipped })),
    done.layout_detail ? h("p", { id: "sheet-layout" }, t(done.layout_detail.header_row > 1 ? "sheetLayoutBelow" : "sheetLayout",
      { name: done.layout_detail.name, columns: done.layout_detail.columns, row: done.layout_detail.header_row })) : null,
    done.repeated ? h("p", { id: "sheet-repeated" }, t("sheetRepeated", { count: done.repeated })) : null,
    ...warnings.map((warning) => h("p", { class: "warning sheet-warning" }, wordsOr(`sheetWarning_${warning.code}`, warning.detail))),
    mapping.length ? h("p", { class: "hint", id: "sheet-columns" },
      mapping.map((entry) => `${roleName(entry.role)} ← ${entry.column}`).join(", ")) : null,
    Array.isArray(done.headers) && done.headers.length ? chooser(done.headers, mapping, file, chosen, send) : null,
    done.stopped ? h("p", { class: "error" }, done.stopped) : null,
    problems.length ? h("ul", { class: "errors" }, problems.map((problem, index) => h("li", {}, problemWords(problem, details[index]))),
      done.more_problems ? h("li", {}, t("sheetMore", { n: done.more_problems })) : null) : null,
  ];
}

/**
 * Other columns for the roles, and the same file imported again with them: a select per role holding the sheet's
 * headers (the one read first chosen), sent as `column=ROLE=HEADER` for each role changed.
 */
function chooser(headers, mapping, file, chosen, send) {
  const current = Object.fromEntries(mapping.map((entry) => [entry.role, entry.column]));
  // The header a role was read from: its column's, or the first of a layout's columns (`A (else B)`).
  const readFrom = (role) => {
    const column = current[role] || "";
    return headers.find((header) => column === header || column.startsWith(`${header} (`)) || "";
  };
  const selects = ROLES.map((role) => {
    const taken = readFrom(role);
    return h("select", { id: `sheet-column-${role}`, "data-role": role },
      h("option", { value: "" }, taken || !current[role] ? t("sheetColumnNone") : current[role]),
      ...headers.map((header) => h("option", { value: header, selected: header === taken }, header)));
  });
  const again = h("button", { type: "button", id: "sheet-again" }, t("sheetAgain"));
  again.addEventListener("click", () => {
    const next = {};
    for (const select of selects) {
      const role = select.dataset.role;
      if (select.value && select.value !== readFrom(role)) next[role] = select.value;
      else if (select.value && chosen[role]) next[role] = chosen[role];
    }
    send(file, next);
  });
  return h("details", { id: "sheet-chooser" }, h("summary", {}, t("sheetChoose")),
    h("div", { class: "fields" }, ...selects.map((select) =>
      h("div", { class: "field" }, h("label", { for: select.id }, roleName(select.dataset.role)), select))),
    again);
}
