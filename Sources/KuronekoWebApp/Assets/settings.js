// The notification settings at /settings: this owner's channels, each removable, and a form that adds an
// ntfy topic, a Slack or Discord webhook or an e-mail address. Web Push channels are made by the
// "Notify me on this device" buttons.

import { ApiError, request } from "./api.js";
import { formatTime, language, refusal, t } from "./i18n.js";
import { ALL, forgetDeviceChannel, pushControl } from "./notify.js";
import { h } from "./views.js";

const KINDS = ["changed", "delivered", "exception", "arriving_soon", "stalled", "page_changed"];
const ADDABLE = ["ntfy", "slack", "discord", "email", "line"];

/** Draws the view into `main`; `explain` puts a failure into words (true when a key form replaced the view). */
export async function showSettings(main, explain) {
  document.title = `${t("settings.title")} · Kuroneko`;
  const list = h("ul", { id: "channels", class: "channels" });
  const empty = h("p", { id: "channels-empty", class: "empty" });
  const form = addChannelForm(() => load());
  main.replaceChildren(
    h("p", {}, h("a", { href: "/" }, `← ${t("back")}`)),
    h("h1", {}, t("settings.title")),
    h("section", { "aria-labelledby": "device-title", class: "panel" },
      h("h2", { id: "device-title" }, t("settings.device")), pushControl(ALL)),
    h("section", { "aria-labelledby": "channels-title" },
      h("h2", { id: "channels-title" }, t("settings.channels")), empty, list),
    form);

  async function load() {
    try {
      const answer = await request("/v1/channels");
      const channels = (answer.data && answer.data.channels) || [];
      if (answer.data && Array.isArray(answer.data.available)) form.offer(answer.data.available);
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
  ].filter(Boolean).join(" · ");
  return h("li", { class: channel.ended_at ? "channel ended" : "channel", "data-kind": channel.kind },
    h("p", { class: "channel-title" }, h("strong", {}, t(`channel.${channel.kind}`)), " ",
      h("code", {}, channel.url || "")),
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
  const kind = h("select", { id: "channel-kind" }, ADDABLE.map((value) => h("option", { value }, t(`channel.${value}`))));
  /** Offers only the kinds this server can send now (no e-mail without its SMTP server). */
  const offer = (available) => {
    const chosen = kind.value;
    kind.replaceChildren(...ADDABLE.filter((value) => available.includes(value))
      .map((value) => h("option", { value }, t(`channel.${value}`))));
    if ([...kind.options].some((option) => option.value === chosen)) kind.value = chosen;
    describe();
  };
  const address = h("input", { id: "channel-address", required: true, spellcheck: "false" });
  const addressLabel = h("label", { for: "channel-address" });
  const token = h("input", { id: "channel-token", type: "password", autocomplete: "off", spellcheck: "false" });
  const to = h("input", { id: "channel-to", autocomplete: "off", spellcheck: "false", placeholder: "U… / broadcast" });
  const lineFields = h("div", { id: "line-fields", class: "line-fields" },
    h("label", { for: "channel-token" }, t("settings.lineToken")), token,
    h("label", { for: "channel-to" }, t("settings.lineTo")), to,
    h("p", { class: "hint" }, t("settings.lineHint")));
  const lang = h("select", { id: "channel-lang" }, h("option", { value: "ja" }, "日本語"), h("option", { value: "en" }, "English"));
  lang.value = language();
  const quiet = h("input", { id: "channel-quiet", placeholder: "22:00-07:00", pattern: "\\d\\d:\\d\\d-\\d\\d:\\d\\d", autocomplete: "off" });
  const kinds = KINDS.map((value) => h("label", { class: "check" },
    // The operator's news (a carrier's page no longer understood) is chosen, not given.
    h("input", { type: "checkbox", name: "kinds", value, checked: value !== "page_changed" }), t(`kind.${value}`)));
  const result = h("div", { id: "channel-result", role: "status" });
  const button = h("button", { type: "submit", id: "channel-add" }, t("add"));
  const describe = () => {
    const line = kind.value === "line";
    lineFields.hidden = !line;
    addressLabel.hidden = line;
    address.hidden = line;
    const email = kind.value === "email";
    addressLabel.textContent = t(email ? "settings.address" : "settings.url");
    address.type = email ? "email" : "url";
    address.inputMode = email ? "email" : "url";
    address.autocomplete = email ? "email" : "url";
    address.placeholder = t(`placeholder.${kind.value}`);
  };
  kind.addEventListener("change", describe);
  describe();
  const form = h("form", { id: "channel-form", class: "panel", novalidate: true },
    h("h2", {}, t("settings.add")),
    h("label", { for: "channel-kind" }, t("settings.kind")), kind,
    addressLabel, address, lineFields,
    h("fieldset", { class: "filters" }, h("legend", {}, t("settings.kinds")), kinds),
    h("div", { class: "row" },
      h("span", { class: "grow" }, h("label", { for: "channel-lang" }, t("language")), lang),
      h("span", { class: "grow" }, h("label", { for: "channel-quiet" }, t("settings.quietLabel")), quiet)),
    h("div", { class: "actions" }, button), result);
  form.offer = offer;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = kinds.map((label) => label.querySelector("input")).filter((box) => box.checked).map((box) => box.value);
    const body = { kind: kind.value, lang: lang.value };
    if (kind.value === "line") {
      body.access_token = token.value.trim();
      const recipients = to.value.split(",").map((id) => id.trim()).filter(Boolean);
      body.to = recipients.length === 1 ? recipients[0] : recipients;
    } else {
      body[kind.value === "email" ? "address" : "url"] = address.value.trim();
    }
    if (chosen.length) body.kinds = chosen;
    if (quiet.value.trim()) body.quiet_hours = quiet.value.trim();
    button.disabled = true;
    try {
      const answer = await request("/v1/channels", { method: "POST", body });
      const lines = [h("p", {}, t("settings.added"))];
      if (answer.data && answer.data.secret) lines.push(h("p", { class: "secret" }, t("settings.secret", { secret: answer.data.secret })));
      result.replaceChildren(...lines);
      address.value = "";
      token.value = "";
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
