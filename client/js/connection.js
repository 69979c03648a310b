// The WebSocket half of the protocol: one socket per room page, "hello" first, automatic
// reconnection with exponential backoff and jitter, keep-alive pings, request ids.

import { CloseCode } from "./codes.js";
import { EventFollower } from "./events.js";
import { GAME_ACTIONS as MOVES } from "./messages.js";

const PING_EVERY_MS = 15000;
const SILENCE_LIMIT_MS = 40000;
// Backoff doubles from 0.5 s up to 4 s; with ±25 % jitter no retry waits more than 5 s, so a
// restarted server is found within a few seconds without every page knocking at once.
const MAX_BACKOFF_MS = 4000;
// A "moved" close (below) is answered at once the first time; when they come one after
// another the retries slow down, and after the first few never come faster than MOVED_FLOOR_MS.
const MOVED_QUICK = 3;
const MOVED_FLOOR_MS = 500;
// This long without a moved close ends a run of them.
const MOVED_CALM_MS = 30000;
// Closes after which a retry would meet the same refusal: the seat was opened in another tab,
// the room was abandoned, there is no such room, the room has as many spectators as it lets in.
const FATAL_CLOSE_CODES = new Set([CloseCode.REPLACED, CloseCode.ABANDONED, CloseCode.NO_ROOM, CloseCode.CROWDED]);
// The room moved to another server process (cluster failover or drain), or the server is
// restarting. Both mean "reconnect now": the room is ready elsewhere.
const MOVED_CLOSE_CODES = new Set([CloseCode.RECONNECT, CloseCode.RESTARTING]);
// Moves: a move sent just before the link dropped may never have reached the room (a room
// that moved refuses it unstored, with 4012). It is sent again after the reconnect only if
// the room still stands where it was sent (same seq) and the move is still legal; otherwise
// it was played, or the turn went on without it, and it is dropped.
const GAME_ACTIONS = new Set(MOVES);
const CLOSE_REASONS = {
  [CloseCode.REPLACED]: "This seat was opened in another tab or window.",
  [CloseCode.ABANDONED]: "This room was closed because nobody was playing.",
  [CloseCode.NO_ROOM]: "This room does not exist.",
  [CloseCode.CROWDED]: "This room has as many spectators as it can take. Try again later.",
};

export class Connection {
  /**
   * @param {object} opts
   * @param {string} opts.code room code
   * @param {() => (string|null)} opts.token the seat token to say hello with
   * @param {(msg: object) => void} opts.onMessage every server message
   * @param {(status: object) => void} opts.onStatus {state: "connecting"|"open"|"down"|"closed", retryAt, attempt, reason}
   */
  constructor({ code, token, onMessage, onStatus }) {
    this.code = code;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.attempt = 0;
    this.nextId = 1;
    this.retryTimer = null;
    this.pingTimer = null;
    this.lastHeard = 0;
    this.stopped = false;
    this.queue = [];
    this.events = new EventFollower();
    this.inflight = null; // {msg, seq}: the last move sent and not yet answered
    this.fresh = false; // the socket is new: its first state decides on `inflight`
    this.moved = 0; // moved closes (4012, 1012) in a row
    this.movedAt = 0;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws/${encodeURIComponent(this.code)}`;
  }

  start() {
    this.stopped = false;
    this.open();
  }

  open() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.onStatus({ state: "connecting", attempt: this.attempt });
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (err) {
      this.scheduleRetry(String(err));
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      this.lastHeard = Date.now();
      this.events.reset();
      this.fresh = true;
      this.rawSend({ type: "hello", token: this.token() || null, id: this.nextId++ });
      this.startPings();
    });
    ws.addEventListener("message", (event) => {
      if (this.ws !== ws) return;
      this.lastHeard = Date.now();
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      msg = this.events.accept(msg); // an event becomes the state it leads to
      if (msg === null) {
        // It does not follow what we hold: ask for a whole state (docs/protocol.md).
        if (this.events.resync()) this.rawSend({ type: "hello", token: this.token() || null, id: this.nextId++ });
        return;
      }
      if (msg.type === "state" && this.attempt !== 0) this.attempt = 0;
      if (this.inflight && msg.ref === this.inflight.msg.id) this.inflight = null; // answered
      if (msg.type === "state") this.flushQueue();
      this.onMessage(msg);
      if (msg.type === "state" && this.fresh) {
        this.fresh = false;
        this.resendMove(msg);
      }
      if (msg.type === "state") this.onStatus({ state: "open" });
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPings();
      if (this.stopped) return;
      if (FATAL_CLOSE_CODES.has(event.code)) {
        // Another tab took the seat, the room was closed or never existed: retrying cannot help.
        this.stopped = true;
        this.onStatus({ state: "closed", reason: CLOSE_REASONS[event.code] || event.reason, code: event.code });
        return;
      }
      this.scheduleRetry(event.reason, MOVED_CLOSE_CODES.has(event.code));
    });
  }

  scheduleRetry(reason, moved = false) {
    const delay = moved ? this.movedDelay() : backoff(this.attempt);
    this.attempt += 1;
    const retryAt = Date.now() + delay;
    this.onStatus({ state: "down", retryAt, attempt: this.attempt, reason });
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  // A moved room is ready again at once: no backoff the first time, only a little jitter so
  // a whole server's players do not reconnect in the same millisecond. Repeated moved closes
  // (even after a state each time) back off: 0.1 s, 0.2 s, 0.4 s, then 0.5 s at least,
  // doubling up to the cap (MAX_BACKOFF_MS).
  movedDelay() {
    const now = Date.now();
    if (now - this.movedAt > MOVED_CALM_MS) this.moved = 0;
    this.moved += 1;
    this.movedAt = now;
    if (this.moved <= MOVED_QUICK) return jitter(100 * 2 ** (this.moved - 1));
    return Math.max(MOVED_FLOOR_MS, backoff(this.moved - MOVED_QUICK - 1, MOVED_FLOOR_MS));
  }

  /** Skip the wait and try again now (the banner's button). */
  reconnectNow() {
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) return;
    this.stopped = false;
    this.open();
  }

  /** Drop the socket and say hello again (e.g. with a new token). */
  restart() {
    const old = this.ws;
    this.ws = null;
    if (old) old.close();
    this.stopPings();
    this.attempt = 0;
    this.open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.stopPings();
    if (this.ws) this.ws.close();
    this.ws = null;
  }

  startPings() {
    this.stopPings();
    this.pingTimer = setInterval(() => {
      if (Date.now() - this.lastHeard > SILENCE_LIMIT_MS && this.ws) {
        this.ws.close(); // a dead link: the close handler reconnects
        return;
      }
      this.rawSend({ type: "ping", id: this.nextId++ });
    }, PING_EVERY_MS);
  }

  stopPings() {
    clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  rawSend(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  flushQueue() {
    const pending = this.queue;
    this.queue = [];
    for (const msg of pending) this.rawSend(msg);
  }

  /** A new socket's first state: the move left unanswered by the old one, again, if the
   * room still stands where it was sent and the move is still legal there. */
  resendMove(state) {
    const sent = this.inflight;
    this.inflight = null;
    if (!sent || state.seq !== sent.seq || !state.view) return;
    const legal = state.view.legal || [];
    if (legal.some((option) => sameMove(option, sent.msg))) this.send(sent.msg);
  }

  get isOpen() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  /** Send an intent; returns its id (echoed by the server as "ref"). Chat waits for the link. */
  send(msg) {
    const withId = { ...msg, id: this.nextId++ };
    const sent = this.rawSend(withId);
    if (!sent && msg.type === "chat") this.queue.push(withId);
    if (sent && GAME_ACTIONS.has(msg.type)) this.inflight = { msg: withId, seq: this.events.seq };
    return withId.id;
  }
}

/** ±25 % around `ms`, so pages that lost the same server do not knock at the same instant. */
function jitter(ms) {
  return Math.round(ms * (0.75 + Math.random() * 0.5));
}

/** The wait before retry number `attempt` (0 first): doubling from `first`, capped, jittered. */
export function backoff(attempt, first = 500) {
  return jitter(Math.min(MAX_BACKOFF_MS, first * 2 ** attempt));
}

/** Whether `move` (a sent message) is the legal option `option` (same fields, id aside). */
function sameMove(option, move) {
  const keys = Object.keys(move).filter((k) => k !== "id");
  return keys.length === Object.keys(option).length && keys.every((k) => option[k] === move[k]);
}
