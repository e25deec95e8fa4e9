// Live updates of the list: the page follows what changed (GET /v1/watches/changes) with a long poll, each
// answer waiting on the server up to 25 s for a change, and reads the list again only when something did. A
// change shows within about a second; an idle page asks about twice a minute, and a check that found the same
// answer costs it nothing.

import { listChanges } from "./api.js";

const WAIT_SECONDS = 25;
let cursor = null;
let seen = null;
let following = false;

/** Takes the cursor to follow from: asked before the list is read, so nothing changed in between is missed. */
export async function followFromNow() {
  try {
    const start = await listChanges(null);
    cursor = start.cursor;
    seen = start.latest;
  } catch (error) {
    cursor = null; // the loop reads the list again, which says what went wrong
  }
}

const pause = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/**
 * Follows the list while `active()` holds (the list on screen, the page visible), calling `changed()` (which
 * reads it again) after each change. An answer that comes back at once with nothing (no answer, or a server
 * with too many waiting) is followed by a pause of `pauseSeconds`, so nothing is asked in a tight loop.
 */
export async function follow(active, changed, pauseSeconds) {
  if (following) return;
  following = true;
  try {
    while (active()) {
      const started = Date.now();
      let moved = false;
      let failed = false;
      if (cursor === null) {
        await followFromNow();
        moved = true;
        failed = cursor === null;
      } else {
        try {
          const changes = await listChanges(cursor, { wait: WAIT_SECONDS, seen });
          cursor = changes.cursor;
          seen = changes.latest;
          moved = changes.more || changes.watches.length > 0 || changes.removed.length > 0;
        } catch (error) {
          // A cursor that can no longer be followed (410), or no answer: the list is read again from a new one.
          cursor = null;
          moved = true;
          failed = true;
        }
      }
      if (moved && active()) await changed();
      if (failed || (!moved && Date.now() - started < 1000)) await pause(pauseSeconds);
    }
  } finally {
    following = false;
  }
}
