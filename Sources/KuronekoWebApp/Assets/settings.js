// The notification settings at /settings: this owner's channels, each removable, and a form that adds a
// channel of any kind the server offers, drawn from the server's description of each kind's fields
// (GET /v1/channels "kinds"), so a kind added on the server needs no change here. Web Push channels are
// made by the "Notify me on this device" buttons.

import { ApiError, request } from "./api.js";
import { formatTime, language, refusal, t } from "./i18n.js";
import { deliveryDaysPanel } from "./delivery-days.js";
import { shopNoticesPanel } from "./notices.js";
import { ALL, forgetDeviceChannel, pushControl } from "./notify.js";
import { h } from "./views.js";

const KINDS = [
  "changed", "delivered", "exception", "arriving_soon", "stalled", "overdue", "kept_reminder", "morning_summary", "page_changed",
];
/** Asked for, not given: the operator's news and the morning summary. */
const CHOSEN_BY_NAME = new Set(["page_changed", "morning_summary"]);
/** How each field form is typed. */
const INPUTS = {
  url: { type: "url", inputmode: "url", autocomplete: "url" },
  email: { type: "email", inputmode: "email", autocomplete: "email" },
  secret: { type: "password", autocomplete: "off" },
  text: { type: "text", autocomplete: "off" },
  list: { type: "text", autocomplete: "off" },
};

/** The kinds as the server last described them, by name (their titles name the channels in the list). */
let described = new Map();

/** A pair of words in the page's language. */
const words = (pair) => (pair ? (language() === "en" ? pair.en : pair.ja) : "");

/** A kind's name for people: the server's title, else its name. */
const title = (kind) => words(described.get(kind) && described.get(kind).title) || kind;

/** Draws the view into `main`; `explain` puts a failure into words (true when a key form replaced the view). */
export async function showSettings(main, explain) {
  document.title = `${t("settings.title")} · Kuroneko`;
  const list = h("ul", { id: "channels", class: "channels" });
  const empty = h("p", { id: "channels-empty", class: "empty" });
  const form = addChannelForm(() => load());
  main.replaceChildren(
    h("p", {}, h("a", { href: "/" }, `← ${t("back")}`)),
    h("h1", {}, t("settings.title")), h("p", { id: "people-page-link" }, h("a", { href: "/people" }, t("people.pageLink"))),
    h("section", { "aria-labelledby": "device-title", class: "panel" },
      h("h2", { id: "device-title" }, t("settings.device")), pushControl(ALL)),
    h("section", { "aria-labelledby": "channels-title" },
      h("h2", { id: "channels-title" }, t("settings.channels")), empty, list, summaryPreview(explain)),
    form, shopNoticesPanel(explain), deliveryDaysPanel(explain));

  async function load() {
    try {
      const answer = await request("/v1/channels");
      const channels = (answer.data && answer.data.channels) || [];
      if (answer.data && Array.isArray(answer.data.kinds)) {
        described = new Map(answer.data.kinds.map((kind) => [kind.name, kind]));
        form.offer(answer.data.kinds);
      }
      if (answer.data && Array.isArray(answer.data.default_kinds)) form.defaults(answer.data.default_kinds);
      empty.textContent = channels.length ? "" : t("settings.none");
      list.replaceChildren(...channels.map((channel) => channelItem(channel, load, explain)));
    } catch (error) {
      explain(error);
    }
  }
  await load();
}

function channelItem(channel, reload, explain) {
  const remove = h("button", { type: "button", class: "danger", "data-channel": channel.id }, t("remove"));
  remove.addEventListener("click", async () => {
    remove.disabled = true;
    try {
      await request(`/v1/channels/${encodeURIComponent(channel.id)}`, { method: "DELETE" });
      forgetDeviceChannel(channel.id);
      await reload();
    } catch (error) {
      remove.disabled = false;
      explain(error);
    }
  });
  const scope = channel.numbers ? t("settings.numbers", { n: channel.numbers.length }) : t("settings.allParcels");
  const details = [
    scope, channel.kinds.map((kind) => t(`kind.${kind}`)).join(", "), channel.lang === "ja" ? "日本語" : "English",
    channel.quiet_hours ? t("settings.quiet", { hours: channel.quiet_hours }) : null,
    channel.summary_at ? t("settings.summaryEvery", { at: channel.summary_at }) : null,
  ].filter(Boolean).join(" · ");
  return h("li", { class: channel.ended_at ? "channel ended" : "channel", "data-kind": channel.kind },
    h("p", { class: "channel-title" }, h("strong", {}, title(channel.kind)), " ",
      h("code", {}, channel.url || ""), channel.device ? ` · ${channel.device}` : "",
      channel.shared === false && !channel.mine ? ` · ${t("settings.othersChannel")}` : ""),
    h("p", { class: "hint" }, details),
    channel.ended_at ? h("p", { class: "error" }, t("settings.ended", { when: formatTime(channel.ended_at), why: channel.ended_reason || "" })) : null,
    !channel.ended_at && channel.problem ? h("p", { class: "error", "data-problem": "" },
      t("settings.failing", { when: formatTime(channel.failing_since), why: channel.problem })) : null,
    channel.kind === "line" ? lineState(channel) : null,
    remove);
}

/** LINE's month: messages used of the quota, a digest, a hold until the month turns. */
function lineState(channel) {
  const lines = [];
  const quota = channel.quota;
  if (quota) {
    lines.push(quota.limit === null
      ? t("settings.lineUnlimited", { used: quota.used })
      : t("settings.lineQuota", { used: quota.used, limit: quota.limit, left: Math.max(0, quota.limit - quota.used) }));
  }
  if (channel.digest) lines.push(t("settings.lineDigest"));
  if (channel.held_until) lines.push(t("settings.lineHeld", { when: formatTime(channel.held_until) }));
  return lines.length ? h("p", { class: "hint", "data-quota": "" }, lines.join(" · ")) : null;
}

function addChannelForm(added) {
  const kind = h("select", { id: "channel-kind" });
  const fields = h("div", { id: "channel-fields" });
  let offered = [];
  /** Offers the kinds this server can send now that a person types (no e-mail without its SMTP server). */
  const offer = (kinds) => {
    const chosen = kind.value;
    offered = kinds.filter((item) => item.typed && item.available);
    kind.replaceChildren(...offered.map((item) => h("option", { value: item.name }, words(item.title))));
    if (offered.some((item) => item.name === chosen)) kind.value = chosen;
    describe();
  };
  /** Draws the chosen kind's fields. */
  const describe = () => {
    const chosen = offered.find((item) => item.name === kind.value);
    fields.replaceChildren(...(chosen ? chosen.fields : []).flatMap((field) => {
      const id = `channel-field-${field.name}`;
      return [
        h("label", { for: id }, words(field.label)),
        h("input", {
          id, name: field.name, "data-form": field.form, required: true, spellcheck: "false",
          placeholder: field.placeholder || null, ...(INPUTS[field.form] || INPUTS.text),
        }),
        field.hint ? h("p", { class: "hint" }, words(field.hint)) : null,
      ].filter(Boolean);
    }));
  };
  kind.addEventListener("change", describe);
  const lang = h("select", { id: "channel-lang" }, h("option", { value: "ja" }, "日本語"), h("option", { value: "en" }, "English"));
  lang.value = language();
  const quiet = h("input", { id: "channel-quiet", placeholder: "22:00-07:00", pattern: "\\d\\d:\\d\\d-\\d\\d:\\d\\d", autocomplete: "off" });
  const kinds = KINDS.map((value) => h("label", { class: "check" },
    // The operator's news (a carrier's page no longer understood) is chosen, not given.
    h("input", { type: "checkbox", name: "kinds", value, checked: !CHOSEN_BY_NAME.has(value) }), t(`kind.${value}`)));
  const summaryAt = h("input", { id: "channel-summary-at", type: "time", value: "07:30" });
  const result = h("div", { id: "channel-result", role: "status" });
  const button = h("button", { type: "submit", id: "channel-add" }, t("add"));
  const form = h("form", { id: "channel-form", class: "panel", novalidate: true },
    h("h2", {}, t("settings.add")),
    h("label", { for: "channel-kind" }, t("settings.kind")), kind,
    fields,
    h("fieldset", { class: "filters" }, h("legend", {}, t("settings.kinds")), kinds),
    h("div", { class: "row" },
      h("span", { class: "grow" }, h("label", { for: "channel-lang" }, t("language")), lang),
      h("span", { class: "grow" }, h("label", { for: "channel-quiet" }, t("settings.quietLabel")), quiet),
      h("span", { class: "grow" }, h("label", { for: "channel-summary-at" }, t("settings.summaryAt")), summaryAt)),
    h("div", { class: "actions" }, button), result);
  form.offer = offer;
  // What a new channel of this person hears unless they choose: a member's own phone what needs them, not every
  // change of every parcel (the server says which); boxes someone has ticked are left as they are.
  let ticked = false;
  for (const label of kinds) label.querySelector("input").addEventListener("change", () => { ticked = true; });
  form.defaults = (names) => {
    if (ticked) return;
    for (const label of kinds) {
      const box = label.querySelector("input");
      box.checked = names.includes(box.value);
    }
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = kinds.map((label) => label.querySelector("input")).filter((box) => box.checked).map((box) => box.value);
    const body = { kind: kind.value, lang: lang.value };
    for (const input of fields.querySelectorAll("input")) {
      const value = input.value.trim();
      if (input.dataset.form === "list") {
        const items = value.split(",").map((item) => item.trim()).filter(Boolean);
        body[input.name] = items.length === 1 ? items[0] : items;
      } else {
        body[input.name] = value;
      }
    }
    if (chosen.length) body.kinds = chosen;
    if (quiet.value.trim()) body.quiet_hours = quiet.value.trim();
    if (chosen.includes("morning_summary") && summaryAt.value) body.summary_at = summaryAt.value.slice(0, 5);
    button.disabled = true;
    try {
      const answer = await request("/v1/channels", { method: "POST", body });
      const lines = [h("p", {}, t("settings.added"))];
      if (answer.data && answer.data.secret) lines.push(h("p", { class: "secret" }, t("settings.secret", { secret: answer.data.secret })));
      result.replaceChildren(...lines);
      for (const input of fields.querySelectorAll("input")) input.value = "";
      await added();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      result.replaceChildren(h("p", { class: "error", role: "alert" }, refusal(error.status, error.detail, error.reason)));
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

/** The morning summary as a channel would get it now (GET /v1/morning-summary), shown on request. */
function summaryPreview(explain) {
  const shown = h("div", { id: "summary-preview", role: "status", "aria-live": "polite" });
  const button = h("button", { type: "button", id: "summary-preview-button", class: "secondary" }, t("summary.preview"));
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const { data } = await request(`/v1/morning-summary?lang=${language() === "en" ? "en" : "ja"}`);
      shown.replaceChildren(data.title
        ? h("pre", { class: "summary-text" }, `${data.title}\n${data.body}`)
        : h("p", { class: "hint" }, t("summary.nothing")));
    } catch (error) {
      explain(error);
    } finally {
      button.disabled = false;
    }
  });
  return h("div", { class: "summary-preview" }, button, shown);
}
