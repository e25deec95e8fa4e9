// The list's parts that stand alone: the counts by family, the CSV download and the demo's offer.

import { ApiError, storedKey } from "./api.js";
import { language, t } from "./i18n.js";
import { formatNumber } from "./numbers.js";
import { carrierName, h } from "./views.js";

// The server's families (status.js's "shipped" is a step of the progress bar, not a family the API counts).
const COUNT_FAMILIES = ["problem", "waiting", "returning", "out", "transit", "accepted", "pending", "delivered", "returned"];

/**
 * The server's counts per family, and of today's forecasts (`state.summary`), each a button that narrows the list to
 * it (in `state`, then `reload` is called).
 */
export function drawCounts(state, reload) {
  const box = document.getElementById("counts");
  if (!box) return;
  const summary = state.summary;
  if (!summary) {
    box.replaceChildren();
    return;
  }
  const counts = summary.by_family || {};
  const chip = (id, text, pressed, onclick) => h("button", {
    type: "button", id, class: "chip", "aria-pressed": pressed ? "true" : "false", onclick,
  }, text);
  box.replaceChildren(
    chip("count-all", t("countAll", { n: summary.total }), state.family === "all" && !state.today,
      () => { state.family = "all"; state.today = false; state.stalled = false; state.overdue = false; reload(); }),
    chip("count-today", t("countToday", { n: summary.forecast ? summary.forecast.today : 0 }), state.today,
      () => { state.today = !state.today; reload(); }),
    ...(summary.stalled || state.stalled
      ? [chip("count-stalled", t("countStalled", { n: summary.stalled || 0 }), state.stalled,
        () => { state.stalled = !state.stalled; reload(); })]
      : []),
    ...(summary.overdue || state.overdue
      ? [chip("count-overdue", t("countOverdue", { n: summary.overdue || 0 }), state.overdue,
        () => { state.overdue = !state.overdue; reload(); })]
      : []),
    ...COUNT_FAMILIES.filter((family) => counts[family] || state.family === family).map((family) =>
      chip(`count-${family}`, `${t(`family.${family}`)} ${counts[family] || 0}`, state.family === family,
        () => { state.family = state.family === family ? "all" : family; reload(); })));
}

/** The list as CSV (the server's, in the page's language, with a BOM for Excel), saved as a file. */
export async function downloadCSV(explain, query = "") {
  const headers = {};
  if (storedKey()) headers.Authorization = `Bearer ${storedKey()}`;
  try {
    // The list as narrowed on screen (the filter, the chip, today, the search).
    const narrowed = query ? `&${query}` : "";
    const response = await fetch(`/v1/watches?format=csv&excel=true&lang=${language()}${narrowed}`, { headers, cache: "no-store" });
    if (!response.ok) throw new ApiError(response.status >= 500 ? "server" : "request", response.status, "");
    const url = URL.createObjectURL(await response.blob());
    const link = h("a", { href: url, download: "kuroneko-watches.csv", id: "download-link", hidden: true });
    document.body.append(link);
    link.click();
    setTimeout(() => { URL.revokeObjectURL(url); link.remove(); }, 1000);
  } catch (error) {
    explain(error instanceof ApiError ? error : new ApiError("offline", 0, ""));
  }
}

/** Removes the selected parcels in one request, after the person confirms. */

/** Whether the server answers from its simulator (`serve --demo`). */
export function isDemo() {
  const meta = document.querySelector('meta[name="kuroneko-demo"]');
  return Boolean(meta && meta.content === "1");
}

/** Numbers the demo's simulator knows, one of each carrier. */
const DEMO_NUMBERS = [["327754459830", "yamato"], ["812345678900", "sagawa"], ["912345678904", "japanpost"]];

/** In the demo, an empty list offers a number of each carrier to try, put in the add form. */
export function demoOffer() {
  const button = h("button", { type: "button", id: "demo-numbers", class: "secondary" }, t("demoAdd"));
  button.addEventListener("click", () => {
    const panel = document.getElementById("add-panel");
    if (panel) panel.open = true;
    const field = document.getElementById("numbers");
    if (!field) return;
    field.value = DEMO_NUMBERS.map(([number]) => formatNumber(number)).join("\n");
    field.dispatchEvent(new Event("input"));
    field.focus();
  });
  return h("span", { class: "demo-offer" }, t("demoNumbers", {
    numbers: DEMO_NUMBERS.map(([number, carrier]) => `${formatNumber(number)} (${carrierName(carrier)})`).join(", "),
  }), " ", button);
}
