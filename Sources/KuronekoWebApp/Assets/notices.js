// Customer notices in the web app: on a parcel's page, the notices its recipient was sent (or why not) and a
// preview of each milestone's notice as the server renders it; on the settings page, the shop's sender, its
// milestones, language, character set and template, and its count per day.

import { ApiError, request, watchPath } from "./api.js";
import { formatTime, language, refusal, t } from "./i18n.js";
import { h } from "./views.js";

const MILESTONES = ["shipped", "out_for_delivery", "delivered", "missed_delivery", "problem"];

/** The parcel page's section, for a parcel whose record has the recipient's e-mail. */
export function noticeSection(watch) {
  const email = watch.record && watch.record.recipient && watch.record.recipient.email;
  if (!email) return null;
  const log = h("ol", { id: "notices", class: "log" });
  const milestone = h("select", { id: "notice-milestone" },
    ...MILESTONES.map((name) => h("option", { value: name }, t(`milestone.${name}`))));
  const shown = h("div", { id: "notice-preview", role: "status" });
  const preview = h("button", { type: "button", id: "notice-preview-button" }, t("notices.preview"));
  preview.addEventListener("click", async () => {
    preview.disabled = true;
    try {
      const answer = await request("/v1/notices/preview", {
        method: "POST", body: { number: watch.number, milestone: milestone.value },
      });
      const notice = answer.data;
      shown.replaceChildren(
        h("p", { class: "hint" }, t(notice.queued ? "notices.asSent" : "notices.asWouldBe", { to: notice.to, charset: notice.charset })),
        h("p", {}, h("strong", { id: "notice-subject" }, notice.subject)),
        h("pre", { id: "notice-text", class: "notice-text" }, notice.text));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      shown.replaceChildren(h("p", { class: "error", role: "alert" }, refusal(error.status, error.detail, error.reason)));
    } finally {
      preview.disabled = false;
    }
  });
  request(`${watchPath(watch.number)}/notices`).then((answer) => {
    const notices = (answer.data && answer.data.notices) || [];
    log.replaceChildren(...(notices.length ? notices.map(noticeItem) : [h("li", {}, t("notices.none"))]));
  }).catch(() => log.replaceChildren(h("li", {}, t("notices.none"))));
  return h("section", { "aria-labelledby": "notices-title", id: "notices-section" },
    h("h2", { id: "notices-title" }, t("notices.title")), log,
    h("div", { class: "actions" }, h("label", { for: "notice-milestone" }, t("notices.milestone")), milestone, preview), shown);
}

function noticeItem(notice) {
  const when = notice.finished_at || notice.queued_at;
  return h("li", { "data-state": notice.state, "data-milestone": notice.milestone },
    h("time", { datetime: when || "" }, formatTime(when)), ` ${t(`milestone.${notice.milestone}`)} · ${t(`notices.state.${notice.state}`)}`,
    notice.error && notice.state !== "sent" ? ` · ${notice.error}` : "");
}

/** The settings page's panel: the shop's notices, saved with PUT /v1/notices/settings. */
export function shopNoticesPanel(explain) {
  const panel = h("section", { "aria-labelledby": "shop-notices-title", id: "shop-notices", class: "panel" },
    h("h2", { id: "shop-notices-title" }, t("notices.shopTitle")), h("p", { class: "loading" }, "…"));
  load().catch((error) => explain(error));
  return panel;

  async function load() {
    const [answer, days] = await Promise.all([request("/v1/notices/settings"), request("/v1/notices/days?days=7")]);
    panel.replaceChildren(h("h2", { id: "shop-notices-title" }, t("notices.shopTitle")),
      form(answer.data), dayTable((days.data && days.data.days) || []));
  }
}

function field(id, label, value, attributes = {}) {
  const input = h(attributes.rows ? "textarea" : "input", { id, ...attributes });
  input.value = value || "";
  return [h("label", { for: id }, label), input];
}

function form(settings) {
  const lang = settings.language || language();
  const template = (settings.templates && settings.templates[lang]) || settings.standard_templates[lang];
  const enabled = h("input", { id: "notices-enabled", type: "checkbox" });
  enabled.checked = settings.enabled;
  const chosen = new Set(settings.milestones);
  const boxes = MILESTONES.map((name) => {
    const box = h("input", { type: "checkbox", value: name, "data-milestone": name });
    box.checked = chosen.has(name);
    return h("label", { class: "check" }, box, " ", t(`milestone.${name}`));
  });
  const languageChoice = h("select", { id: "notices-language" },
    h("option", { value: "ja" }, "日本語"), h("option", { value: "en" }, "English"));
  languageChoice.value = lang;
  const charset = h("select", { id: "notices-charset" },
    h("option", { value: "iso-2022-jp" }, "ISO-2022-JP"), h("option", { value: "utf-8" }, "UTF-8"));
  charset.value = settings.charset;
  const [nameLabel, name] = field("notices-shop-name", t("notices.shopName"), settings.shop.name, { maxlength: 100 });
  const [addressLabel, address] = field("notices-shop-address", t("notices.shopAddress"), settings.shop.address, { maxlength: 200 });
  const [contactLabel, contact] = field("notices-shop-contact", t("notices.shopContact"), settings.shop.contact, { maxlength: 200 });
  const [subjectLabel, subject] = field("notices-subject", t("notices.subject"), template.subject, { maxlength: 200 });
  const [bodyLabel, body] = field("notices-body", t("notices.body"), template.body, { rows: 12, maxlength: 4000 });
  const result = h("div", { id: "notices-result", role: "status" });
  const save = h("button", { type: "submit", id: "notices-save" }, t("notices.save"));
  const element = h("form", { id: "notices-form", novalidate: true },
    settings.can_send ? null : h("p", { class: "hint", id: "notices-cannot-send" }, t("notices.cannotSend")),
    h("label", { class: "check" }, enabled, " ", t("notices.enabled")),
    nameLabel, name, addressLabel, address, contactLabel, contact,
    h("fieldset", {}, h("legend", {}, t("notices.milestones")), ...boxes),
    h("label", { for: "notices-language" }, t("language")), languageChoice,
    h("label", { for: "notices-charset" }, t("notices.charset")), charset,
    subjectLabel, subject, bodyLabel, body,
    h("p", { class: "hint" }, t("notices.fields", { fields: settings.fields.map((item) => `{{${item}}}`).join(" ") })),
    h("div", { class: "actions" }, save), result);
  element.addEventListener("submit", async (event) => {
    event.preventDefault();
    save.disabled = true;
    const templates = {};
    templates[languageChoice.value] = { subject: subject.value, body: body.value };
    try {
      await request("/v1/notices/settings", {
        method: "PUT",
        body: {
          enabled: enabled.checked, language: languageChoice.value, charset: charset.value, templates,
          shop: { name: name.value, address: address.value, contact: contact.value },
          milestones: boxes.map((label) => label.querySelector("input")).filter((box) => box.checked).map((box) => box.value),
        },
      });
      result.replaceChildren(h("p", {}, t("notices.saved")));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      result.replaceChildren(h("p", { class: "error", role: "alert" }, refusal(error.status, error.detail, error.reason)));
    } finally {
      save.disabled = false;
    }
  });
  return element;
}

function dayTable(days) {
  if (!days.length) return h("p", { class: "hint", id: "notices-days" }, t("notices.noDays"));
  const states = ["sent", "pending", "refused", "stopped", "failed", "skipped"];
  return h("table", { id: "notices-days", class: "days" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("notices.day")),
      ...states.map((state) => h("th", { scope: "col" }, t(`notices.state.${state}`))))),
    h("tbody", {}, ...days.map((day) => h("tr", {}, h("th", { scope: "row" }, day.day),
      ...states.map((state) => h("td", {}, String(day[state])))))));
}
