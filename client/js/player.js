// This browser's guest player: made on the first visit (POST /api/players), kept in
// localStorage, named by every REST call (api.js) and by `sit`. The page works without
// one (the server could not be reached): it tries again on the next page. A browser signed
// in to an account (account.js) makes no guest: its session cookie names the player, on
// REST and on the socket (the server fills `sit`'s player from it).

import * as api from "./api.js";
import * as storage from "./storage.js";

let pending = null;

/** The player `{id, secret}`, made once if this browser has none; null if it cannot be. */
export function ensurePlayer() {
  const account = storage.getAccount();
  if (account) return Promise.resolve({ id: account.id, account: true });
  const kept = storage.getPlayer();
  if (kept) return Promise.resolve(kept);
  if (!pending) {
    const name = storage.getName();
    pending = api.createPlayer(name ? { name } : {}).then(
      (made) => {
        const player = { id: made.id, secret: made.secret };
        storage.setPlayer(player);
        return player;
      },
      () => null,
    ).finally(() => {
      pending = null;
    });
  }
  return pending;
}

/** This browser's player id (signed in, or the guest's), or null. */
export function myId() {
  const known = storage.getAccount() || storage.getPlayer();
  return known ? known.id : null;
}

/** `ID:SECRET`, as `sit`'s `player` carries it, or null (signed in: the server knows). */
export function credential() {
  const player = storage.getPlayer();
  return player ? `${player.id}:${player.secret}` : null;
}

let renaming = Promise.resolve();

/** The display name picked here, kept by the server too (for the next visit anywhere). A
 * first visit may still be making its player: the name goes once it is made. */
export function keepName(name) {
  const before = storage.getName();
  storage.setName(name);
  if (name === before) return renaming;
  renaming = ensurePlayer().then((player) => {
    if (!player) return;
    return api.renameMe(name).catch((err) => {
      // Unknown to the server now: forget it; the next page makes a new one with this name.
      if (err.status === 401) storage.setPlayer(null);
    });
  });
  return renaming;
}

/** Settled once the last name picked has reached the server (or failed to): a page about to
 * go elsewhere waits for it, so leaving does not cut it off. */
export const nameKept = () => renaming;
