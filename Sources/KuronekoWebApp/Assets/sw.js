// The service worker: the page and its files from a cache of this version, so the dashboard opens without
// a network; the watch list from the network when it answers, else the last copy, marked with the time it
// was saved (the page then says it may be out of date). It also shows the server's pushed messages as
// notifications, one per parcel (a newer replaces an older), and opens the parcel when one is clicked.

const VERSION = "__VERSION__";
const SHELL = `kuroneko-shell-${VERSION}`;
const DATA = "kuroneko-data";
const PRECACHE = __PRECACHE__;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(PRECACHE)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name.startsWith("kuroneko-shell-") && name !== SHELL)
      .map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => caches.match("/", { cacheName: SHELL })
      .then((page) => page || Response.error())));
  } else if (url.pathname.startsWith("/assets/")) {
    event.respondWith(caches.match(request, { cacheName: SHELL }).then((hit) => hit || fetch(request)));
  } else if (url.pathname.startsWith("/v1/watches") && url.pathname !== "/v1/watches/changes") {
    // What changed since a cursor is asked live only: a copy of it would say changes that are not there (and a
    // copy per cursor would grow without end).
    event.respondWith(watchList(request, url));
  }
});

/** Network first; a 200 is saved (keyed by address alone; a table's first page only), a failure answered from
 * the saved copy. */
async function watchList(request, url) {
  const key = url.pathname + url.search;
  try {
    const response = await fetch(request);
    // The table's deeper pages are not kept: a list of 100,000 read by scrolling would fill the cache. Its
    // first page is, as the cards' list is, so the offline copy starts where the table does.
    const deeper = Number(url.searchParams.get("offset") || "0") > 0;
    if (response.status === 200 && !deeper) {
      const body = await response.clone().arrayBuffer();
      const headers = new Headers(response.headers);
      headers.set("X-Kuroneko-Saved-At", new Date().toISOString());
      headers.delete("Content-Encoding");
      const cache = await caches.open(DATA);
      await cache.put(key, new Response(body, { status: 200, headers }));
    }
    return response;
  } catch (error) {
    const saved = await caches.match(key, { cacheName: DATA });
    return saved || Response.error();
  }
}

/** What a pushed message says: {title, body?, kind, tag, number?, url?, action_url?} (see ChannelRequests). */
function pushedMessage(event) {
  try {
    const data = event.data ? event.data.json() : {};
    return data && typeof data === "object" ? data : {};
  } catch (error) {
    return { title: event.data ? event.data.text().slice(0, 200) : "" };
  }
}

function notificationFor(message) {
  const number = typeof message.number === "string" && /^[0-9A-Z]{10,13}$/.test(message.number) ? message.number : null;
  const options = {
    body: typeof message.body === "string" ? message.body : "",
    tag: typeof message.tag === "string" ? message.tag : number ? `parcel-${number.toLowerCase()}` : "kuroneko",
    renotify: true,
    icon: `/assets/${VERSION}/icon-192.png`,
    badge: `/assets/${VERSION}/icon-192.png`,
    data: { number, actionURL: typeof message.action_url === "string" ? message.action_url : null },
  };
  if (options.data.actionURL) options.actions = [{ action: "change", title: message.action_title || "日時・場所変更" }];
  return { title: typeof message.title === "string" && message.title ? message.title : "Kuroneko", options };
}

self.addEventListener("push", (event) => {
  const { title, options } = notificationFor(pushedMessage(event));
  event.waitUntil(self.registration.showNotification(title, options));
});

/** The page a notification leads to: the parcel in this app, or the carrier's change page for its action. */
function notificationTarget(notification, action) {
  const data = notification.data || {};
  if (action === "change" && data.actionURL && /^https:\/\//.test(data.actionURL)) return data.actionURL;
  return new URL(data.number ? `/parcel/${encodeURIComponent(data.number)}` : "/", self.location.origin).href;
}

/**
 * Shows the target: a page of this app in a window of it that is already open (told to go there, as its own
 * links go, whether or not this worker controls it yet), anything else or with no such window in a new one.
 */
async function openNotificationTarget(target) {
  const url = new URL(target);
  if (url.origin === self.location.origin) {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
    if (open) {
      open.postMessage({ kuroneko: "open", path: url.pathname });
      return open.focus().catch(() => open);
    }
  }
  return self.clients.openWindow(target);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openNotificationTarget(notificationTarget(event.notification, event.action)));
});
