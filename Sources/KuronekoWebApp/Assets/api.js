// The watch-list API as the page uses it: the API key from this browser's storage, conditional requests,
// and failures turned into an ApiError whose kind says what the person can do about it.

const KEY_STORAGE = "kuroneko.key";
const CSRF_STORAGE = "kuroneko.csrf";

export class ApiError extends Error {
  /**
   * kind: "offline" (no answer), "key" (401), "missing" (404), "request" (other 4xx), "server" (5xx);
   * reason: the problem's stable code, where the server gave one.
   */
  constructor(kind, status, detail, reason = "") {
    super(detail || `HTTP ${status}`);
    this.kind = kind;
    this.status = status;
    this.detail = detail || "";
    this.reason = reason;
  }
}

export function storedKey() {
  try { return localStorage.getItem(KEY_STORAGE) || ""; } catch (e) { return ""; }
}

export function storeKey(key) {
  try {
    if (key) localStorage.setItem(KEY_STORAGE, key); else localStorage.removeItem(KEY_STORAGE);
  } catch (e) { /* storage unavailable: the key lasts as long as the page */ }
}

/** The signed-in session's CSRF token, kept for this tab (the session cookie itself is HttpOnly). */
export function storeCsrf(token) {
  try {
    if (token) sessionStorage.setItem(CSRF_STORAGE, token); else sessionStorage.removeItem(CSRF_STORAGE);
  } catch (e) { /* storage unavailable */ }
}

function storedCsrf() {
  try { return sessionStorage.getItem(CSRF_STORAGE) || ""; } catch (e) { return ""; }
}

/**
 * One request. Resolves to {status, data, etag, savedAt}: status 304 when `etag` still matches (no data),
 * savedAt when the service worker answered from its copy because the server could not be reached.
 */
export async function request(path, { method = "GET", body, etag, raw, rawType, retried = false } = {}) {
  const headers = { Accept: "application/json" };
  const key = storedKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  const csrf = storedCsrf();
  if (csrf && method !== "GET" && method !== "HEAD") headers["X-CSRF-Token"] = csrf;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  // Bytes sent as they are (a saved mail), with their own type.
  if (raw !== undefined) headers["Content-Type"] = rawType || "application/octet-stream";
  if (etag) headers["If-None-Match"] = etag;
  let response;
  try {
    response = await fetch(path, {
      method, headers, cache: "no-store", body: raw !== undefined ? raw : body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError("offline", 0, "");
  }
  if (response.status === 304) return { status: 304, data: null, etag };
  let data = null;
  const type = response.headers.get("Content-Type") || "";
  if (response.status !== 204 && type.includes("json")) data = await response.json().catch(() => null);
  // A tab opened after signing in has the cookie but not the CSRF token: ask for it once, then again.
  if (response.status === 403 && data && data.reason === "csrf" && !retried) {
    const session = await fetch("/v1/session", { headers: { Accept: "application/json" }, cache: "no-store" }).catch(() => null);
    const known = session && session.ok ? await session.json().catch(() => null) : null;
    if (known && known.csrf_token) {
      storeCsrf(known.csrf_token);
      return request(path, { method, body, etag, raw, rawType, retried: true });
    }
  }
  if (!response.ok) {
    const detail = data && typeof data.detail === "string" ? data.detail : `HTTP ${response.status}`;
    const kind = response.status === 401 ? "key" : response.status === 404 ? "missing"
      : response.status >= 500 ? "server" : "request";
    throw new ApiError(kind, response.status, detail, data && typeof data.reason === "string" ? data.reason : "");
  }
  return {
    status: response.status, data, etag: response.headers.get("ETag"),
    savedAt: response.headers.get("X-Kuroneko-Saved-At"),
  };
}

/**
 * The watches the server keeps for `query` (its status, family, forecast and q parameters), page by page (500
 * at a time, at most `pages` pages). With `etag`, the first page is asked for conditionally; a 304 there means
 * nothing changed (lists longer than one page are always read again). `more` says whether pages were left.
 */
export async function listWatches(query, etag, pages = 20) {
  const base = `/v1/watches?limit=500${query ? `&${query}` : ""}`;
  const first = await request(base, { etag });
  if (first.status === 304) return first;
  let watches = first.data.watches;
  let cursor = first.data.next_cursor;
  for (let page = 1; cursor && page < pages; page += 1) {
    const next = await request(`${base}&cursor=${encodeURIComponent(cursor)}`);
    watches = watches.concat(next.data.watches);
    cursor = next.data.next_cursor;
  }
  return {
    status: 200, data: watches, more: Boolean(cursor), etag: first.data.next_cursor ? null : first.etag,
    savedAt: first.savedAt,
  };
}

/**
 * What changed in the list after `since` ({cursor, latest, more, watches, removed, summary}), the answer waiting up
 * to `wait` seconds for a change newer than `seen`; without `since`, only the cursor to follow from.
 */
export async function listChanges(since, { wait = 0, seen = since } = {}) {
  const query = since === null ? "" : `?since=${encodeURIComponent(since)}&seen=${encodeURIComponent(seen)}&wait=${wait}`;
  return (await request(`/v1/watches/changes${query}`)).data;
}

/** The server's counts of the watches `query` keeps (by family, by status, today's forecasts). */
export async function watchSummary(query) {
  return (await request(`/v1/watches/summary${query ? `?${query}` : ""}`)).data;
}

export const watchPath = (digits) => `/v1/watches/${encodeURIComponent(digits)}`;
