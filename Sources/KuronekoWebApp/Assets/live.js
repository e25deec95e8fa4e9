// Live updates of the list: the page follows what changed (GET /v1/watches/changes, a small answer when
// nothing did) and reads the list again only when something did, so a check that found the same answer costs
// an open page one small request.

import { listChanges } from "./api.js";

let cursor = null;

/** Takes the cursor to follow from: asked before the list is read, so nothing changed in between is missed. */
export async function followFromNow() {
  try {
    cursor = (await listChanges(null)).cursor;
  } catch (error) {
    cursor = null; // told at the next poll, which then reads the list again
  }
}

/** Whether the list changed since it was last read; true when that cannot be told (read it again to see). */
export async function listChanged() {
  if (cursor === null) {
    await followFromNow();
    return true;
  }
  try {
    const changes = await listChanges(cursor);
    cursor = changes.cursor;
    return changes.more || changes.watches.length > 0 || changes.removed.length > 0;
  } catch (error) {
    // A cursor that can no longer be followed (410), or no answer: the list is read again, and says which.
    cursor = null;
    return true;
  }
}
