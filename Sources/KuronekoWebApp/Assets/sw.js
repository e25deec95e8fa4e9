// The service worker: the page and its files from a cache of this version, so the dashboard opens without
// a network; the watch list from the network when it answers, else the last copy, marked with the time it
// was saved (the page then says it may be out of date).

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
  } else if (url.pathname.startsWith("/v1/watches")) {
    event.respondWith(watchList(request, url));
  }
});

/** Network first; a 200 is saved (keyed by address alone), a failure answered from the saved copy. */
async function watchList(request, url) {
  const key = url.pathname + url.search;
  try {
    const response = await fetch(request);
    if (response.status === 200) {
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
