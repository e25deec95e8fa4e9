// Notifications on this device: Web Push through the service worker, registered with the server as a
// web_push channel (for every parcel, or for one). Which channels this browser made is kept in its storage.

import { ApiError, request } from "./api.js";
import { language, refusal, t } from "./i18n.js";
import { h } from "./views.js";

const DEVICE_STORAGE = "kuroneko.push";
/** The scope of a channel for every parcel. */
export const ALL = "*";

function deviceChannels() {
  try {
    const saved = JSON.parse(localStorage.getItem(DEVICE_STORAGE) || "{}");
    return saved && typeof saved === "object" ? saved : {};
  } catch (e) { return {}; }
}

function saveDeviceChannels(channels) {
  try {
    if (Object.keys(channels).length) localStorage.setItem(DEVICE_STORAGE, JSON.stringify(channels));
    else localStorage.removeItem(DEVICE_STORAGE);
  } catch (e) { /* no storage: the channel stays on the server, listed in the settings */ }
}

/** The channel id this device registered for `scope` (ALL or a number's digits), or null. */
export function deviceChannel(scope) {
  return deviceChannels()[scope] || null;
}

/**
 * Whether this device can be notified: "ok", "denied" (the person blocked notifications for this site),
 * "homeScreen" (an iPhone or iPad where the page is not opened from the Home Screen, where Safari offers no
 * push), "insecure" (not https), or "unsupported".
 */
export function pushSupport() {
  const apple = /iPhone|iPad|iPod/.test(navigator.userAgent)
    || (navigator.platform === "MacIntel" && navigator.maxTouchPoints > 1);
  const standalone = (window.matchMedia && matchMedia("(display-mode: standalone)").matches) || navigator.standalone === true;
  if (!window.isSecureContext) return "insecure";
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    return apple && !standalone ? "homeScreen" : "unsupported";
  }
  if (Notification.permission === "denied") return "denied";
  return "ok";
}

function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(base64url.length / 4) * 4, "=");
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

function sameKey(buffer, bytes) {
  if (!buffer) return false;
  const held = new Uint8Array(buffer);
  return held.length === bytes.length && held.every((byte, index) => byte === bytes[index]);
}

/**
 * Turns notifications on for `scope`. Must be called from the click itself: the permission prompt needs
 * the person's gesture. Throws an Error whose message is for the person.
 */
export async function enablePush(scope) {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error(t(permission === "denied" ? "push.denied" : "push.dismissed"));
  const registration = await navigator.serviceWorker.ready;
  const { data } = await request("/v1/push/vapid-key");
  const serverKey = keyBytes(data.public_key);
  let subscription = await registration.pushManager.getSubscription();
  // A subscription made for another server's key (a new database) cannot carry this server's messages.
  if (subscription && !sameKey(subscription.options && subscription.options.applicationServerKey, serverKey)) {
    await subscription.unsubscribe().catch(() => false);
    subscription = null;
  }
  if (!subscription) {
    try {
      subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: serverKey });
    } catch (error) {
      throw new Error(t("push.subscribeFailed", { detail: error.message || String(error) }));
    }
  }
  const body = { kind: "web_push", subscription: subscription.toJSON(), lang: language(), device: deviceName() };
  if (scope !== ALL) body.numbers = [scope];
  const answer = await request("/v1/channels", { method: "POST", body });
  const channels = deviceChannels();
  channels[scope] = answer.data.id;
  saveDeviceChannels(channels);
}

/** This device in a few words, so that two phones of one member are told apart (「Android · Chrome」). */
export function deviceName() {
  const agent = navigator.userAgent || "";
  const system = /iPhone|iPad/.test(agent) ? "iOS" : /Android/.test(agent) ? "Android" : /Mac OS X/.test(agent) ? "Mac"
    : /Windows/.test(agent) ? "Windows" : /Linux/.test(agent) ? "Linux" : "Browser";
  const browser = /Edg\//.test(agent) ? "Edge" : /Firefox\//.test(agent) ? "Firefox" : /Chrome\//.test(agent) ? "Chrome"
    : /Safari\//.test(agent) ? "Safari" : "";
  return [system, browser].filter(Boolean).join(" · ").slice(0, 60);
}

/** Turns notifications off for `scope`; the push subscription goes when no channel of this device is left. */
export async function disablePush(scope) {
  const channels = deviceChannels();
  const id = channels[scope];
  if (id) {
    try {
      await request(`/v1/channels/${encodeURIComponent(id)}`, { method: "DELETE" });
    } catch (error) {
      if (!(error instanceof ApiError && error.kind === "missing")) throw error;
    }
  }
  delete channels[scope];
  saveDeviceChannels(channels);
  if (!Object.keys(channels).length && "serviceWorker" in navigator) {
    const registration = await navigator.serviceWorker.ready;
    const subscription = await registration.pushManager.getSubscription();
    if (subscription) await subscription.unsubscribe().catch(() => false);
  }
}

/** Forgets a channel removed elsewhere (the settings view), so the buttons say it is off. */
export function forgetDeviceChannel(id) {
  const channels = deviceChannels();
  for (const [scope, held] of Object.entries(channels)) if (held === id) delete channels[scope];
  saveDeviceChannels(channels);
}

/** How long turning notifications on may take before the person is told to try again (20 s; a test may set
 * `kuroneko.subscribeSeconds` in this browser's storage). */
function subscribeTimeout() {
  try {
    const set = Number(localStorage.getItem("kuroneko.subscribeSeconds"));
    if (set > 0) return set;
  } catch (e) { /* no storage: the default */ }
  return 20;
}

/** `work`, or an Error saying it timed out after `seconds`. */
function withTimeout(work, seconds) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(t("push.timeout", { seconds }))), seconds * 1000);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Why an attempt failed, in the page's language: the server's reason where it gave one. */
function explanation(error) {
  if (error instanceof ApiError) return refusal(error.status, error.detail, error.reason);
  return error.message || String(error);
}

/**
 * The "Notify me on this device" control for every parcel (ALL) or for one number: a button, the state and a
 * way to turn it off, or a plain sentence saying why this device cannot.
 */
export function pushControl(scope) {
  const box = h("div", { class: "push", id: scope === ALL ? "push-all" : "push-parcel", role: "group", "aria-live": "polite" });
  const draw = (message = "", tone = "") => {
    const support = pushSupport();
    const note = message ? h("p", { class: `push-note ${tone}` }, message) : null;
    if (support !== "ok") {
      box.replaceChildren(h("p", { class: "push-note", id: "push-unsupported" }, t(`push.${support}`)));
      return;
    }
    const all = deviceChannel(ALL);
    if (scope !== ALL && all && !deviceChannel(scope)) {
      box.replaceChildren(...[h("p", { class: "push-note" }, t("push.onForAll")), note].filter(Boolean));
      return;
    }
    if (deviceChannel(scope)) {
      const off = h("button", { type: "button", id: "push-off", class: "secondary" }, t("push.turnOff"));
      off.addEventListener("click", async () => {
        off.disabled = true;
        try { await disablePush(scope); draw(t("push.turnedOff")); } catch (error) { draw(explanation(error), "error"); }
      });
      box.replaceChildren(...[h("p", { class: "push-state" }, t(scope === ALL ? "push.onAll" : "push.onParcel")), off, note].filter(Boolean));
      return;
    }
    const on = h("button", { type: "button", id: "push-on" }, t(scope === ALL ? "push.enableAll" : "push.enableParcel"));
    on.addEventListener("click", async () => {
      on.disabled = true;
      on.setAttribute("aria-busy", "true");
      box.replaceChildren(on, h("p", { class: "push-note", id: "push-working", role: "status" }, t("push.working")));
      try {
        await withTimeout(enablePush(scope), subscribeTimeout());
        draw(t("push.enabled"));
      } catch (error) {
        draw(explanation(error), "error");
      }
    });
    box.replaceChildren(...[on, note].filter(Boolean));
  };
  draw();
  return box;
}
