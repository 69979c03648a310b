// What the browser remembers between visits: seat tokens per room, the player's name,
// and the last used game settings.

const TOKEN_PREFIX = "spades.token.";
const NAME_KEY = "spades.name";
const SETTINGS_KEY = "spades.settings";
const SOLO_KEY = "spades.solo";

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

export const getName = () => read(NAME_KEY) || "";
export const setName = (name) => write(NAME_KEY, name);

export const DEFAULT_SETTINGS = Object.freeze({
  mode: "partnership",
  target: 300,
  turn_seconds: 0,
  game_minutes: 0,
  rules: { nil: true, blind_nil: true, blind_nil_deficit: 100 },
  bot_level: "basic",
  public: false,
});

export function getSettings() {
  const raw = read(SETTINGS_KEY);
  if (!raw) return structuredClone(DEFAULT_SETTINGS);
  try {
    const saved = JSON.parse(raw);
    return {
      ...structuredClone(DEFAULT_SETTINGS),
      ...saved,
      rules: { ...DEFAULT_SETTINGS.rules, ...(saved.rules || {}) },
    };
  } catch {
    return structuredClone(DEFAULT_SETTINGS);
  }
}

export const setSettings = (settings) => write(SETTINGS_KEY, JSON.stringify(settings));

/** Play solo's own choices: every player for themself by default. */
export const DEFAULT_SOLO = Object.freeze({ mode: "individual", target: 300, turn_seconds: 0, bot_level: "basic" });

export function getSolo() {
  try {
    return { ...DEFAULT_SOLO, ...(JSON.parse(read(SOLO_KEY) || "{}") || {}) };
  } catch {
    return { ...DEFAULT_SOLO };
  }
}

export const setSolo = (solo) => write(SOLO_KEY, JSON.stringify(solo));

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
