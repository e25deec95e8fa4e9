// Passkeys in the browser (WebAuthn): signing in with one (no name to type: the passkey says who), and a
// signed-in person's own passkeys at /settings (made on this device, listed, removed). Offered only where the
// browser has passkeys; the server checks every answer.

import { ApiError, request, storeCsrf } from "./api.js";
import { formatTime, refusal, t } from "./i18n.js";
import { deviceName } from "./notify.js";
import { h } from "./views.js";

export const passkeysAvailable = () => typeof window.PublicKeyCredential === "function" && !!navigator.credentials;

const toBase64URL = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
  .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromBase64URL = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

/** Signs in with a passkey of this site; resolves once signed in (the CSRF token kept), throws what went wrong. */
export async function signInWithPasskey() {
  const options = (await request("/v1/session/passkey/options", { method: "POST", body: {} })).data;
  const credential = await navigator.credentials.get({
    publicKey: {
      challenge: fromBase64URL(options.challenge), rpId: options.rpId, userVerification: options.userVerification,
      timeout: options.timeout,
    },
  });
  const answer = await request("/v1/session/passkey", {
    method: "POST",
    body: {
      id: toBase64URL(credential.rawId), client_data: toBase64URL(credential.response.clientDataJSON),
      authenticator_data: toBase64URL(credential.response.authenticatorData),
      signature: toBase64URL(credential.response.signature),
    },
  });
  storeCsrf(answer.data.csrf_token);
}

/** The signed-in person's passkeys, and a button that makes one on this device. */
export function passkeySection(explain) {
  const list = h("ul", { id: "passkeys", class: "members" });
  const result = h("div", { id: "passkey-result", role: "status" });
  const section = h("div", { id: "passkey-section" }, h("h3", {}, t("passkey.title")), list);
  if (passkeysAvailable()) {
    const add = h("button", { type: "button", id: "passkey-add" }, t("passkey.add"));
    add.addEventListener("click", async () => {
      add.disabled = true;
      try {
        await createPasskey();
        result.replaceChildren(h("p", {}, t("passkey.added")));
        await load();
      } catch (error) {
        result.replaceChildren(h("p", { class: "error", role: "alert" }, words(error)));
      } finally {
        add.disabled = false;
      }
    });
    section.append(h("div", { class: "actions" }, add), result);
  } else {
    section.append(h("p", { class: "hint" }, t("passkey.unavailable")));
  }
  load().catch((error) => explain(error));
  return section;

  async function load() {
    const passkeys = (await request("/v1/passkeys")).data.passkeys;
    list.replaceChildren(...passkeys.map((passkey) => {
      const remove = h("button", { type: "button", class: "danger", "data-passkey": passkey.id }, t("remove"));
      remove.addEventListener("click", async () => {
        remove.disabled = true;
        try {
          await request(`/v1/passkeys/${encodeURIComponent(passkey.id)}`, { method: "DELETE" });
          await load();
        } catch (error) {
          remove.disabled = false;
          explain(error);
        }
      });
      const used = passkey.last_used_at ? t("passkey.used", { at: formatTime(passkey.last_used_at) }) : t("passkey.unused");
      return h("li", {}, h("span", {}, passkey.name), " ", h("span", { class: "role" }, used), " ", remove);
    }));
  }
}

async function createPasskey() {
  const options = (await request("/v1/passkeys/options", { method: "POST", body: {} })).data;
  const publicKey = {
    ...options, challenge: fromBase64URL(options.challenge),
    user: { ...options.user, id: fromBase64URL(options.user.id) },
    excludeCredentials: options.excludeCredentials.map((item) => ({ ...item, id: fromBase64URL(item.id) })),
  };
  const credential = await navigator.credentials.create({ publicKey });
  await request("/v1/passkeys", {
    method: "POST",
    body: {
      id: toBase64URL(credential.rawId), client_data: toBase64URL(credential.response.clientDataJSON),
      attestation: toBase64URL(credential.response.attestationObject), name: deviceName().slice(0, 60),
    },
  });
}

/** What went wrong with a passkey, in the page's language: the person cancelled, or the server said why. */
export function words(error) {
  if (error instanceof ApiError) return refusal(error.status, error.detail, error.reason);
  if (error && (error.name === "NotAllowedError" || error.name === "AbortError")) return t("passkey.cancelled");
  if (error && error.name === "InvalidStateError") return t("passkey.exists");
  return t("passkey.failed");
}
