// "Play now" on the home page: quick play. The player picks a mode, a target (the server's
// quick play targets) and whether bots may fill the table after a wait; the server seats
// four players of similar rating at a new rated table. While waiting the page polls GET
// /api/quickplay?wait= (each poll keeps the place in the queue and waits on the server for
// the seat, so the table is taken the moment it is made) and shows how many wait and for
// how long; once matched it keeps the seat's token and goes to the table. Leaving the page
// leaves the queue (a DELETE sent as the page goes; the server drops anyone who stops
// polling anyway). A seat made meanwhile is kept for the player: a poll whose answer was
// lost is sent again, and a page reloaded while queued asks for its state once it is back.

import { ApiError, csrfHeaders, playerHeaders, UNREACHABLE } from "./api.js";
import { h, mount } from "./dom.js";
import { ensurePlayer, keepName, nameKept } from "./player.js";
import * as storage from "./storage.js";
import { quickPlayTargets } from "./views/settings.js";

const CHOICE_KEY = "spades.quickplay";
// Set while this tab has a place in the queue: a reload asks the server where it stands.
const PENDING_KEY = "spades.quickplay.pending";
const MODES = [["partnership", "Partners (2 vs 2)"], ["individual", "Every player for themself"]];
// Seconds after which bots may fill the table (then it is not rated); 0: wait for people.
const BOTS_AFTER = [[0, "Never: wait for people"], [10, "After 10 s"], [30, "After 30 s"], [60, "After 1 min"], [120, "After 2 min"]];

// The three calls of /api/quickplay, in this browser's player's name (its guest credential,
// or its session cookie with the CSRF token a change needs).
async function request(method, body, query = "") {
  let response;
  try {
    response = await fetch(`/api/quickplay${query}`, {
      method,
      credentials: "same-origin", // a signed-in browser is named by its session cookie
      headers: { ...(body ? { "Content-Type": "application/json" } : {}), ...playerHeaders(), ...csrfHeaders(method) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new ApiError(0, UNREACHABLE);
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, (data && data.detail) || `HTTP ${response.status}`);
  return data;
}

function leaveOnExit() {
  try {
    const headers = { ...playerHeaders(), ...csrfHeaders("DELETE") };
    fetch("/api/quickplay", { method: "DELETE", headers, keepalive: true, credentials: "same-origin" }).catch(() => {});
  } catch {
    // the page is going: nothing to do (the server drops a player who stops polling)
  }
}

function savedChoice() {
  try {
    const saved = JSON.parse(localStorage.getItem(CHOICE_KEY) || "null");
    if (saved && typeof saved === "object") return saved;
  } catch {
    // nothing saved, or unreadable
  }
  return {};
}

function pending(on) {
  try {
    if (on) sessionStorage.setItem(PENDING_KEY, "1");
    else sessionStorage.removeItem(PENDING_KEY);
  } catch {
    // no storage: a reload forgets the queue (the server drops the place soon)
  }
}

function wasPending() {
  try {
    return sessionStorage.getItem(PENDING_KEY) === "1";
  } catch {
    return false;
  }
}

function saveChoice(choice) {
  try {
    localStorage.setItem(CHOICE_KEY, JSON.stringify(choice));
  } catch {
    // private mode: not remembered
  }
}

const clockText = (seconds) => {
  const s = Math.max(0, Math.round(seconds || 0));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};
const modeWord = (mode) => (MODES.find(([m]) => m === mode) || [mode, mode])[1];

function chip(name, value, checked, label) {
  const id = `${name}-${value}`;
  return h("label", { class: "chip", for: id },
    h("input", { type: "radio", id, name, value: String(value), checked }),
    h("span", {}, label));
}

function choiceForm(model) {
  const presets = quickPlayTargets();
  const choice = model.choice;
  const target = presets.includes(Number(choice.target)) ? Number(choice.target) : presets[0];
  return h("form", { class: "quickplay-form", "data-form": "quickplay" },
    h("fieldset", { class: "field" },
      h("legend", {}, "Mode"),
      h("div", { class: "chips" },
        MODES.map(([m, text]) => chip("qp-mode", m, (choice.mode || "partnership") === m, text)))),
    h("fieldset", { class: "field" },
      h("legend", {}, "Play to"),
      h("div", { class: "chips" }, presets.map((t) => chip("qp-target", t, t === target, String(t))))),
    h("div", { class: "field" },
      h("label", { for: "qp-bots" }, "Fill with bots"),
      h("select", { id: "qp-bots", name: "qp-bots" },
        BOTS_AFTER.map(([v, text]) => h("option", { value: String(v), selected: Number(choice.bots_after || 0) === v }, text))),
      h("small", { class: "muted small" }, "A table with bots is not rated.")),
    h("button", { type: "submit", class: "btn primary big", disabled: model.busy }, "Play now"),
    model.error ? h("p", { class: "form-error", role: "alert" }, model.error) : null);
}

// The waiting view's clocks run here between two answers (a poll may wait several seconds).
function clocks(state) {
  const since = (performance.now() - (state.receivedAt || performance.now())) / 1000;
  const botsIn = state.bots_in === null || state.bots_in === undefined ? null : Math.max(0, state.bots_in - since);
  return { waited: (state.waited || 0) + since, botsIn };
}

function timeText(state) {
  const { waited, botsIn } = clocks(state);
  return `You have waited ${clockText(waited)}` + (botsIn === null ? "" : ` · bots fill your table in ${clockText(botsIn)}`);
}

function waitingView(state) {
  const seating = state.status === "seating";
  const others = Math.max(0, (state.waiting || 1) - 1);
  return h("div", { class: "quickplay-waiting" },
    h("p", { class: "lead", role: "status" },
      seating ? "Players found: setting your table…" : "Looking for players of about your level…"),
    h("p", { class: "quickplay-count" },
      `${others} other ${others === 1 ? "player" : "players"} waiting for ${modeWord(state.mode)} to ${state.target}`,
      state.waiting_mode > state.waiting ? ` (${state.waiting_mode} for ${modeWord(state.mode)} in all)` : ""),
    h("p", { class: "quickplay-time", "data-qp": "time" }, timeText(state)),
    h("button", { type: "button", class: "btn", "data-qp": "cancel", disabled: seating }, "Cancel"));
}

function render(el, model) {
  mount(el, h("section", { class: "card-panel quickplay", "aria-labelledby": "quickplay-title" },
    h("h2", { id: "quickplay-title" }, "Play now"),
    model.state
      ? waitingView(model.state)
      : [h("p", { class: "muted" }, "Four players of about your level at a new rated table."), choiceForm(model)]));
}

// The name picked on the home page ("Your name"), kept as home.js keeps it.
function homeName() {
  const field = document.getElementById("player-name");
  const name = (field ? field.value : storage.getName() || "").trim() || "Player";
  keepName(name);
  return name;
}

/** Start "Play now" in `el`, a part of the home page of its own. */
export function startQuickPlay(el, { currentName = homeName } = {}) {
  const model = { choice: savedChoice(), state: null, busy: false, error: null };
  let timer = null;
  let round = 0; // each poll's answer counts only while no newer poll or cancel came after
  const show = () => render(el, model);
  // The clocks of the waiting view, once a second (the text alone: focus stays put).
  const ticker = setInterval(() => {
    const time = model.state && el.querySelector("[data-qp='time']");
    if (time) time.textContent = timeText(model.state);
  }, 1000);

  const stop = () => {
    round += 1;
    if (timer) clearTimeout(timer);
    timer = null;
  };

  const seated = (state) => {
    stop();
    clearInterval(ticker);
    pending(false);
    model.state = null;
    storage.setToken(state.code, state.token);
    location.assign(`/r/${encodeURIComponent(state.code)}`);
  };

  const waiting = (state) => {
    if (state.status === "matched") return seated(state);
    pending(true);
    model.state = { ...state, receivedAt: performance.now() };
    show();
    next(state.wait_seconds ? 0.1 : (state.poll_seconds || 1.5));
  };

  const next = (seconds) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(poll, seconds * 1000);
  };

  const join = async () => {
    const body = {
      mode: model.choice.mode || "partnership",
      target: Number(model.choice.target) || quickPlayTargets()[0],
      bots_after: Number(model.choice.bots_after) || null,
    };
    body.name = currentName();
    await nameKept();
    return request("POST", body);
  };

  const poll = async () => {
    timer = null;
    if (!model.state) return;
    const mine = ++round;
    const wait = model.state.wait_seconds || 0;
    let state;
    try {
      state = await request("GET", null, wait ? `?wait=${wait}` : "");
    } catch (err) {
      if (mine !== round) return; // cancelled meanwhile
      // Dropped (the server restarted, or this page slept past the expiry): queue again.
      if (err.status === 404) {
        try {
          state = await join();
        } catch (again) {
          return fail(again);
        }
      } else if (err.status === 403) {
        return fail(err); // banned while waiting: out of the queue, and the reason said
      } else {
        // The server is away, or the answer was lost: ask again (a seat made meanwhile
        // is handed again).
        next(3);
        return;
      }
    }
    if (mine !== round) return;
    waiting(state);
  };

  const fail = (err) => {
    stop();
    pending(false);
    model.state = null;
    model.busy = false;
    model.error = err.message || "Quick play is not available just now.";
    show();
  };

  el.addEventListener("change", (event) => {
    const form = event.target.closest("form[data-form='quickplay']");
    if (!form) return;
    model.choice = {
      mode: form.querySelector("input[name='qp-mode']:checked")?.value,
      target: Number(form.querySelector("input[name='qp-target']:checked")?.value),
      bots_after: Number(form.elements.namedItem("qp-bots").value),
    };
    saveChoice(model.choice);
  });

  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    model.busy = true;
    model.error = null;
    show();
    try {
      await ensurePlayer();
      const state = await join();
      model.busy = false;
      waiting(state);
    } catch (err) {
      fail(err);
    }
  });

  el.addEventListener("click", async (event) => {
    if (!event.target.closest("[data-qp='cancel']")) return;
    stop();
    try {
      const state = await request("DELETE");
      if (state.status === "matched") return seated(state);
      if (state.status === "seating") {
        model.state = { ...state, receivedAt: performance.now() };
        show();
        next(0.5);
        return;
      }
    } catch (err) {
      if (err.status !== 404) return fail(err);
    }
    pending(false);
    model.state = null;
    show();
  });

  // Leaving the page leaves the queue (keepalive: the request outlives the page).
  window.addEventListener("pagehide", () => {
    if (model.state && model.state.status === "waiting") leaveOnExit();
  });

  show();
  // Back after a reload while queued (or matched, the answer lost): where do we stand?
  if (wasPending()) {
    request("GET").then((state) => {
      if (!model.state && !model.busy) waiting(state);
    }, () => pending(false));
  }
}
