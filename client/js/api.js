// The REST half of the protocol: rooms, solo games, joining, history, the guest player,
// the account. Every call names this browser's guest player (X-Spades-Player) once it has
// one; a browser signed in to an account is named by its session cookie instead (sent by
// the browser itself), and each change echoes the session's CSRF token (X-Spades-CSRF).

import { ErrorCode } from "./codes.js";
import * as storage from "./storage.js";

export const PLAYER_HEADER = "X-Spades-Player";

/** The header naming this browser's player, or none. */
export function playerHeaders() {
  const player = storage.getPlayer();
  return player ? { [PLAYER_HEADER]: `${player.id}:${player.secret}` } : {};
}

export const CSRF_HEADER = "X-Spades-CSRF";

/** The session's CSRF token (the readable `spades_csrf` cookie) for a change, or none. */
export function csrfHeaders(method) {
  if (method === "GET") return {};
  const found = document.cookie.match(/(?:^|;\s*)spades_csrf=([^;]+)/);
  return found ? { [CSRF_HEADER]: decodeURIComponent(found[1]) } : {};
}

export class ApiError extends Error {
  constructor(status, detail) {
    super(typeof detail === "string" ? detail : describe(detail));
    this.status = status;
    this.detail = detail;
  }
}

function describe(detail) {
  if (Array.isArray(detail)) {
    return detail
      .map((d) => `${(d.loc || []).filter((p) => p !== "body").join(".")}: ${d.msg}`)
      .join("; ");
  }
  return detail ? JSON.stringify(detail) : "request failed";
}

// No answer at all (the server is down, or this device is offline): status 0, in words.
export const UNREACHABLE = "Can't reach the server. Check your connection and try again in a moment.";

async function call(method, path, body, { player = true } = {}) {
  let response;
  const named = player && storage.getPlayer() !== null;
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: {
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...(named ? playerHeaders() : {}),
        ...csrfHeaders(method),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, UNREACHABLE);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  // The server no longer knows this browser's player (its database was reset): forget it,
  // so the next page makes a new one, and ask again without it. Nothing gets harder.
  if (response.status === 401 && named && data && data.code === ErrorCode.BAD_PLAYER && !path.startsWith("/api/me")) {
    storage.setPlayer(null);
    return call(method, path, body, { player: false });
  }
  // The account's session is over (signed out elsewhere, or the account deleted).
  if (response.status === 401 && !named && data && data.code === ErrorCode.BAD_PLAYER && storage.getAccount()) {
    storage.setAccount(null);
  }
  if (!response.ok) {
    const fallback = response.status === 429 ? "Too many requests, try again in a minute"
      : response.status >= 502 ? "The server is busy or restarting. Try again in a moment."
      : `HTTP ${response.status}`;
    throw new ApiError(response.status, (data && data.detail) || fallback);
  }
  return data;
}

export const createRoom = (body) => call("POST", "/api/rooms", body);
export const createSolo = (body) => call("POST", "/api/solo", body);
export const listRooms = () => call("GET", "/api/rooms");
export const getRoom = (code) => call("GET", `/api/rooms/${encodeURIComponent(code)}`);
export const joinRoom = (code, body) => call("POST", `/api/rooms/${encodeURIComponent(code)}/join`, body);
export const roomHistory = (code) => call("GET", `/api/rooms/${encodeURIComponent(code)}/history`);
export const createPlayer = (body) => call("POST", "/api/players", body, { player: false });
export const getMe = () => call("GET", "/api/me");
export const report = (body) => call("POST", "/api/reports", body);
export const renameMe = (name) => call("PATCH", "/api/me", { name });
/** Change this browser's player: `{name}`, `{public}` or both. */
export const updateMe = (changes) => call("PATCH", "/api/me", changes);
export const myRooms = () => call("GET", "/api/me/rooms");
export const playerGames = (id, before) => call("GET", `/api/players/${encodeURIComponent(id)}/games?limit=20${before ? `&before=${before}` : ""}`);

// The account (account.js): claim one for this browser's guest, sign in and out, the
// password, deleting it.
export const claimAccount = (body) => call("POST", "/api/account", body);
export const signIn = (body) => call("POST", "/api/session", body, { player: false });
export const signOut = () => call("DELETE", "/api/session", undefined, { player: false });
export const signOutEverywhere = () => call("POST", "/api/account/sign-out-everywhere", undefined, { player: false });
export const changePassword = (body) => call("POST", "/api/account/password", body, { player: false });
export const deleteAccount = (body) => call("DELETE", "/api/account", body, { player: false });
export const passkeyOptions = () => call("POST", "/api/account/passkeys/options", undefined, { player: false });
export const addPasskey = (body) => call("POST", "/api/account/passkeys", body, { player: false });
export const passkeySignInOptions = () => call("POST", "/api/session/passkey/options", undefined, { player: false });
export const passkeySignIn = (body) => call("POST", "/api/session/passkey", body, { player: false });

// Administrators (admin.js): the server answers them only (403 `admin_only` to anyone else).
export const adminReports = () => call("GET", "/api/admin/reports");
export const closeReport = (id) => call("POST", `/api/admin/reports/${id}/close`);
export const adminSanctions = () => call("GET", "/api/admin/sanctions");
export const addSanction = (body) => call("POST", "/api/admin/sanctions", body);
export const liftSanction = (id) => call("DELETE", `/api/admin/sanctions/${id}`);
export const closeRoom = (code, reason) => call("POST", `/api/admin/rooms/${encodeURIComponent(code)}/close`, { reason });
export const auditLog = (limit, before) => call("GET", `/api/admin/audit?limit=${limit}${before ? `&before=${before}` : ""}`);
