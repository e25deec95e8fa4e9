// The shop's days to deliver at /settings: per carrier and destination prefecture, from the list's delivered
// parcels, the median and 90th percentile of days and the share that came by the carrier's planned day; the
// table as CSV. Nothing is shown before the list has delivered parcels.

import { request } from "./api.js";
import { t } from "./i18n.js";
import { h } from "./views.js";

export function deliveryDaysPanel(explain) {
  const panel = h("section", { "aria-labelledby": "delivery-days-title", id: "delivery-days", class: "panel", hidden: true });
  request("/v1/watches/delivery-days").then((answer) => {
    const rows = (answer.data && answer.data.rows) || [];
    if (!rows.length) return;
    const heads = ["days.carrier", "days.prefecture", "days.parcels", "days.median", "days.p90", "days.onTime"];
    panel.replaceChildren(h("h2", { id: "delivery-days-title" }, t("days.title")),
      h("table", { class: "days" },
        h("thead", {}, h("tr", {}, ...heads.map((key) => h("th", { scope: "col" }, t(key))))),
        h("tbody", {}, ...rows.map((row) => h("tr", {},
          h("th", { scope: "row" }, row.carrier), h("td", {}, row.prefecture || t("days.unknown")),
          h("td", {}, String(row.parcels)), h("td", {}, String(row.median_days)), h("td", {}, String(row.p90_days)),
          h("td", {}, row.on_time_rate === null ? "—" : `${Math.round(row.on_time_rate * 100)}% (${row.on_time}/${row.planned})`))))),
      h("p", {}, h("a", { href: "/v1/watches/delivery-days?format=csv", download: "kuroneko-delivery-days.csv", id: "delivery-days-csv" },
        t("days.csv"))));
    panel.hidden = false;
  }).catch((error) => explain(error));
  return panel;
}
