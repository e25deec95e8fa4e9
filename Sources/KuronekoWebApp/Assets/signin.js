// Signing in with a name and password (once people have accounts the list is nobody's without it), and joining
// a list from an invitation link (/join#TOKEN). The session itself is an HttpOnly cookie the page never sees;
// the CSRF token the server answers is kept for this tab and sent with every change (api.js).

import { ApiError, request, storeCsrf } from "./api.js";
import { refusal, t } from "./i18n.js";
import { passkeysAvailable, signInWithPasskey, words } from "./passkeys.js";
import { h } from "./views.js";

/** The sign-in form in `main`; `done` runs once signed in. `useKey` offers the API key form instead. */
export function showSignIn(main, done, useKey) {
  const name = h("input", { id: "signin-name", autocomplete: "username", required: true, spellcheck: "false" });
  const password = h("input", { id: "signin-password", type: "password", autocomplete: "current-password", required: true });
  const result = h("div", { id: "signin-result", role: "status" });
  const submit = h("button", { type: "submit", id: "signin-submit" }, t("signin.submit"));
  const keyLink = h("button", { type: "button", class: "link", id: "signin-use-key" }, t("signin.useKey"));
  keyLink.addEventListener("click", useKey);
  const passkey = passkeysAvailable() ? h("button", { type: "button", id: "signin-passkey" }, t("passkey.signIn")) : null;
  passkey?.addEventListener("click", async () => {
    passkey.disabled = true;
    try {
      await signInWithPasskey();
      done();
    } catch (error) {
      result.replaceChildren(h("p", { class: "error", role: "alert" }, words(error)));
    } finally {
      passkey.disabled = false;
    }
  });
  const form = h("form", { id: "signin-form", class: "panel" },
    h("h1", {}, t("signin.title")), passkey ? h("div", { class: "actions" }, passkey) : null,
    h("label", { for: "signin-name" }, t("signin.name")), name,
    h("label", { for: "signin-password" }, t("signin.password")), password,
    h("div", { class: "actions" }, submit, keyLink), result);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      const answer = await request("/v1/session", { method: "POST", body: { name: name.value, password: password.value } });
      storeCsrf(answer.data.csrf_token);
      done();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const words = error.reason === "bad_credentials" ? t("signin.wrong")
        : error.reason === "too_many_attempts" ? t("signin.wait") : refusal(error.status, error.detail, error.reason);
      result.replaceChildren(h("p", { class: "error", role: "alert" }, words));
    } finally {
      submit.disabled = false;
    }
  });
  main.replaceChildren(form);
  name.focus();
}

/** /join#TOKEN: a new account (or an existing one's password) joins the invitation's list. */
export function showJoin(main, done) {
  const token = decodeURIComponent(location.hash.slice(1));
  const name = h("input", { id: "join-name", autocomplete: "username", required: true, spellcheck: "false" });
  const display = h("input", { id: "join-display", autocomplete: "nickname" });
  const password = h("input", { id: "join-password", type: "password", autocomplete: "new-password", required: true, minlength: 8 });
  const result = h("div", { id: "join-result", role: "status" });
  const submit = h("button", { type: "submit", id: "join-submit" }, t("join.submit"));
  const form = h("form", { id: "join-form", class: "panel" },
    h("h1", {}, t("join.title")), h("p", {}, t("join.explain")),
    h("label", { for: "join-name" }, t("signin.name")), name,
    h("label", { for: "join-display" }, t("join.display")), display,
    h("label", { for: "join-password" }, t("join.password")), password,
    h("div", { class: "actions" }, submit), result);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      const body = { token, name: name.value, password: password.value };
      if (display.value.trim()) body.display_name = display.value.trim();
      const answer = await request("/v1/invitations/accept", { method: "POST", body });
      storeCsrf(answer.data.csrf_token);
      history.replaceState(null, "", "/");
      done();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      result.replaceChildren(h("p", { class: "error", role: "alert" }, refusal(error.status, error.detail, error.reason)));
    } finally {
      submit.disabled = false;
    }
  });
  main.replaceChildren(form);
  name.focus();
}
