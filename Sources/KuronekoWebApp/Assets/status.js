// Status codes grouped into the families the list colours, and the five steps of the progress indicator.

export const STEPS = ["accepted", "shipped", "transit", "out", "delivered"];

// Labels of a departure: the parcel has left the first office but nothing more is known.
const DEPARTURE_LABELS = new Set(["発送", "発送済み", "海外発送"]);

/** The family of a status: one of STEPS, "problem", or "pending" before the first answer. */
export function familyOf(status) {
  if (!status) return "pending";
  switch (status.code) {
    case "info_received": return "accepted";
    case "in_transit": return DEPARTURE_LABELS.has(status.label) ? "shipped" : "transit";
    case "out_for_delivery":
    case "available_for_pickup": return "out";
    case "delivered": return "delivered";
    default: return "problem";
  }
}

/** How far along the steps a shipment has come (0-4), or -1 when it has no event yet. */
export function stepOf(shipment) {
  if (!shipment) return -1;
  let step = -1;
  for (const event of shipment.events || []) {
    let family = familyOf(event);
    if (event.code === "attempt_failed") family = "out";
    const index = STEPS.indexOf(family);
    if (index > step) step = index;
  }
  const current = STEPS.indexOf(familyOf(shipment.status));
  return Math.max(step, current);
}

/** Whether the parcel's story is over (delivered, returned, or a final answer such as not found). */
export function isFinished(watch) {
  return !watch.active;
}
