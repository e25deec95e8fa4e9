// The people of the list, at /settings, for a signed-in browser: who is signed in and to which list (signing out
// here or on every device, turning to another of one's lists), the members and their roles, and for an admin an
// invitation link to make, a member to take out, and the list's audit log (the latest 50; all of it as CSV).
// A browser using an API key has no session: the panel is not shown.

import { ApiError, request, storeCsrf } from "./api.js";
import { formatTime, refusal, t } from "./i18n.js";
import { passkeySection } from "./passkeys.js";
import { h } from "./views.js";

const ROLES = ["staff", "viewer", "admin"];

/** The page's words for `key`, else the server's own (an action this page does not know yet). */
const named = (key, fallback) => (t(key) === key ? fallback : t(key));

/** The page of the list's people (`/people`): who is signed in, the members by the names they chose, what each
 * role may do, and for an admin the invitations and the log. */
export function showPeople(main, explain) {
  document.title = `${t("people.title")} · Kuroneko`;
  const nobody = h("p", { id: "people-nobody", class: "hint" }, t("people.nobody"));
  main.replaceChildren(
    h("p", {}, h("a", { href: "/" }, `← ${t("back")}`)),
    h("h1", {}, t("people.title")), nobody, peoplePanel(explain, () => { nobody.hidden = true; }));
}

export function peoplePanel(explain, shown = () => {}) {
  const panel = h("section", { "aria-labelledby": "people-title", id: "people", class: "panel", hidden: true });
  load().catch((error) => explain(error));
  return panel;

  async function load() {
    let session;
    try {
      session = (await request("/v1/session")).data; // 204 (no data): nobody signed in, as with an API key
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return; // an API key's browser: nobody signed in
      throw error;
    }
    if (!session) return;
    const admin = session.role === "admin";
    const [members, audit] = await Promise.all([
      request("/v1/members").then((answer) => answer.data.members),
      admin ? request("/v1/audit?limit=50").then((answer) => answer.data.entries) : Promise.resolve(null),
    ]);
    // replaceChildren writes a null as the text "null": a staff member's or viewer's panel has no invitations or log.
    panel.replaceChildren(...[h("h2", { id: "people-title" }, t("people.signedIn")),
      whoAmI(session, explain), passkeySection(explain), h("h3", {}, t("people.members")),
      memberList(members, session, admin, load, explain), roleLegend(),
      admin ? inviteForm(explain) : null, audit ? auditTable(audit) : null].filter(Boolean));
    panel.hidden = false;
    shown();
  }
}

function whoAmI(session, explain) {
  const here = session.lists.find((list) => list.id === session.list);
  const out = h("button", { type: "button", id: "people-signout" }, t("people.signOut"));
  const everywhere = h("button", { type: "button", class: "link", id: "people-signout-everywhere" }, t("people.signOutEverywhere"));
  const leave = (path, method) => async () => {
    try {
      await request(path, { method });
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) return explain(error);
    }
    storeCsrf("");
    location.assign("/");
  };
  out.addEventListener("click", leave("/v1/session", "DELETE"));
  everywhere.addEventListener("click", leave("/v1/session/everywhere", "POST"));
  const parts = [h("p", { id: "people-me" }, t("people.me", {
    name: session.name, list: here ? here.name : session.list, role: t(`role.${session.role}`),
  }))];
  if (session.lists.length > 1) {
    const choice = h("select", { id: "people-list" },
      ...session.lists.map((list) => h("option", { value: list.id }, `${list.name} (${t(`role.${list.role}`)})`)));
    choice.value = session.list;
    choice.addEventListener("change", async () => {
      try {
        const answer = await request("/v1/session/list", { method: "POST", body: { list: choice.value } });
        storeCsrf(answer.data.csrf_token);
        location.assign("/");
      } catch (error) {
        explain(error);
      }
    });
    parts.push(h("label", { for: "people-list" }, t("people.switch")), choice);
  }
  return h("div", { class: "me" }, ...parts, h("div", { class: "actions" }, out, everywhere));
}

function memberList(members, session, admin, reload, explain) {
  return h("ul", { id: "people-members", class: "members" }, ...members.map((member) => {
    // The name the member chose (ママ), with the one they sign in with when it differs.
    const display = member.display_name && member.display_name !== member.name
      ? [h("span", { class: "member-display" }, member.display_name), " ", h("span", { class: "hint" }, `（${member.name}）`)]
      : [h("span", { class: "member-display" }, member.name)];
    const item = h("li", { "data-member": member.name }, ...display, " ",
      h("span", { class: "role" }, t(`role.${member.role}`)));
    if (admin && member.name !== session.name) {
      const remove = h("button", { type: "button", class: "danger", "data-remove-member": member.name },
        t("people.remove"));
      remove.addEventListener("click", async () => {
        if (!confirm(t("people.removeConfirm", { name: member.name }))) return;
        remove.disabled = true;
        try {
          await request(`/v1/members/${encodeURIComponent(member.name)}`, { method: "DELETE" });
          await reload();
        } catch (error) {
          remove.disabled = false;
          explain(error);
        }
      });
      item.append(" ", remove);
    }
    return item;
  }));
}

/** What each role may do, a line each. */
function roleLegend() {
  return h("dl", { id: "people-roles", class: "roles" }, ...ROLES.flatMap((name) => [
    h("dt", {}, t(`role.${name}`)), h("dd", {}, t(`role.${name}.may`))]));
}

function inviteForm(explain) {
  const role = h("select", { id: "people-invite-role" }, ...ROLES.map((name) => h("option", { value: name }, t(`role.${name}`))));
  const submit = h("button", { type: "submit", id: "people-invite" }, t("people.invite"));
  const result = h("div", { id: "people-invite-result", role: "status" });
  const form = h("form", { id: "people-invite-form" },
    h("label", { for: "people-invite-role" }, t("people.inviteAs")), role, h("div", { class: "actions" }, submit), result);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      const answer = await request("/v1/invitations", { method: "POST", body: { role: role.value, days: 7 } });
      const link = h("input", { id: "people-invite-link", readonly: true, "aria-label": t("people.link") });
      link.value = new URL(answer.data.path, location.origin).href;
      const copy = h("button", { type: "button", id: "people-invite-copy" }, t("people.copy"));
      copy.addEventListener("click", () => {
        link.select();
        navigator.clipboard && navigator.clipboard.writeText(link.value).catch(() => {});
      });
      result.replaceChildren(h("p", {}, t("people.linkMade", { until: formatTime(answer.data.expires_at) })), link, copy);
    } catch (error) {
      if (!(error instanceof ApiError)) return explain(error);
      result.replaceChildren(h("p", { class: "error", role: "alert" }, refusal(error.status, error.detail, error.reason)));
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

function auditTable(entries) {
  const csv = h("a", { href: "/v1/audit?format=csv", id: "people-audit-csv", download: "kuroneko-audit.csv" }, t("people.auditCsv"));
  if (!entries.length) return h("div", { id: "people-audit" }, h("h3", {}, t("people.audit")), h("p", { class: "hint" }, t("people.auditNone")));
  return h("div", { id: "people-audit" }, h("h3", {}, t("people.audit")),
    h("table", { class: "audit" },
      h("thead", {}, h("tr", {}, ...["people.when", "people.who", "people.what", "people.detail"].map((key) => h("th", { scope: "col" }, t(key))))),
      h("tbody", {}, ...entries.map((entry) => h("tr", {},
        h("td", {}, formatTime(entry.at)), h("td", {}, entry.member), h("td", {}, named(`audit.${entry.action}`, entry.action)),
        h("td", {}, entry.detail))))),
    h("p", {}, csv));
}
