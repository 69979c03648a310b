// What the browser remembers between visits: the guest player (id and secret), seat tokens
// per room, the player's name, and the last used game settings (their defaults are the
// server's).

const TOKEN_PREFIX = "spades.token.";
const NAME_KEY = "spades.name";
const SETTINGS_KEY = "spades.settings";
const SOLO_KEY = "spades.solo";
const PLAYER_KEY = "spades.player";
const ACCOUNT_KEY = "spades.account";

function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // private mode or full storage: the page still works, it just forgets
  }
}

export const getToken = (code) => read(TOKEN_PREFIX + code);
export const setToken = (code, token) => write(TOKEN_PREFIX + code, token);
export const clearToken = (code) => write(TOKEN_PREFIX + code, null);

/** This browser's guest player, `{id, secret}`, or null before the first visit made one. */
export function getPlayer() {
  try {
    const saved = JSON.parse(read(PLAYER_KEY) || "null");
    return saved && typeof saved.id === "string" && typeof saved.secret === "string" ? saved : null;
  } catch {
    return null;
  }
}
export const setPlayer = (player) => write(PLAYER_KEY, player ? JSON.stringify({ id: player.id, secret: player.secret }) : null);

/** The account this browser is signed in to, `{id, username}`, or null. Only a reminder:
 * the session itself is an HttpOnly cookie no script reads (the server is the judge). */
export function getAccount() {
  try {
    const saved = JSON.parse(read(ACCOUNT_KEY) || "null");
    return saved && typeof saved.id === "string" && typeof saved.username === "string" ? saved : null;
  } catch {
    return null;
  }
}
export const setAccount = (account) => write(ACCOUNT_KEY, account ? JSON.stringify({ id: account.id, username: account.username }) : null);

export const getName = () => read(NAME_KEY) || "";
export const setName = (name) => write(NAME_KEY, name);

// Settings are remembered as they were last chosen; what was never chosen is the server's
// default (GET /api/settings, views/settings.js), so none is spelled here.
function readObject(key) {
  try {
    const saved = JSON.parse(read(key) || "{}");
    return saved && typeof saved === "object" && !Array.isArray(saved) ? saved : {};
  } catch {
    return {};
  }
}

/** The create form's last settings (possibly some fields only, or none). */
export const getSettings = () => readObject(SETTINGS_KEY);
export const setSettings = (settings) => write(SETTINGS_KEY, JSON.stringify(settings));

/** Play solo's last choices (possibly some fields only, or none). */
export const getSolo = () => readObject(SOLO_KEY);
export const setSolo = (solo) => write(SOLO_KEY, JSON.stringify(solo));

/** The names whose chat this browser hides in a room (the Hide button by a message). */
export function getHidden(code) {
  const list = readObject(`spades.hidden.${code}`);
  return Array.isArray(list) ? list.filter((n) => typeof n === "string") : [];
}
export const setHidden = (code, names) => write(`spades.hidden.${code}`, names.length ? JSON.stringify(names) : null);

/** How many finished hands of a game this tab has already shown (so a reload does not re-show). */
export function getSeenHands(code, gameId) {
  try {
    const raw = sessionStorage.getItem(`spades.seen.${code}`);
    const [id, count] = (raw || "").split(":");
    return id === String(gameId) ? Number(count) : null;
  } catch {
    return null;
  }
}

export function setSeenHands(code, gameId, count) {
  try {
    sessionStorage.setItem(`spades.seen.${code}`, `${gameId}:${count}`);
  } catch {
    // ignore
  }
}
