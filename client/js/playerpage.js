// A player's page, /#player/{id}: their rating per mode and its history as a chart
// (ratingchart.js), their statistics per mode (GET /api/players/{id}/stats)
// and their finished games, newest first, a page at a time
// (GET /api/players/{id}/games), each linking to its review. A private room's game names its
// players only to a viewer who sat in it (api.js sends this browser's player). The page is
// private until its player turns on "Show my games to others" here (PATCH /api/me); the
// server answers a private player's page to others as it does an unknown player's (404),
// so a visitor is told the games are private.

import { announce } from "./announce.js";
import * as api from "./api.js";
import { SEAT_NAMES } from "./cards.js";
import { h, mount } from "./dom.js";
import { myId } from "./player.js";
import { fetchRatings, ratingsView } from "./ratingchart.js";

function result(game) {
  if (game.winner === null || game.winner === undefined) return "No winner";
  const teams = game.mode === "partnership";
  const mine = teams ? game.seat % 2 : game.seat;
  return game.winner === mine ? "Won" : "Lost";
}

function scoresText(game) {
  if (!game.scores) return "";
  const teams = game.scores.length === 2;
  const nameOf = (seat) => {
    const player = game.players.find((p) => p.seat === seat);
    return (player && player.name) || SEAT_NAMES[seat];
  };
  return game.scores.map((score, side) => `${teams ? `${nameOf(side)} & ${nameOf(side + 2)}` : nameOf(side)} ${score}`).join(" · ");
}

function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

function gameItem(game) {
  const mode = game.mode === "partnership" ? "Partners" : "Individual";
  return h("li", { class: "room-item", "data-key": `game-${game.game_id}` },
    h("div", {},
      h("strong", {}, `${result(game)} · ${mode}${game.target ? ` to ${game.target}` : ""}`),
      h("div", { class: "muted small" }, [when(game.finished_at), scoresText(game)].filter(Boolean).join(" · "))),
    h("div", { class: "room-item-end" },
      h("a", { class: "btn small", href: `/#review/${game.game_id}`, "aria-label": `Review game ${game.game_id}` }, "Review")));
}

// The statistics, fetched here (api.js is shared): a failure leaves the games shown.
async function fetchStats(playerId) {
  let response;
  try {
    response = await fetch(`/api/players/${encodeURIComponent(playerId)}/stats`, { headers: api.playerHeaders() });
  } catch {
    throw new api.ApiError(0, api.UNREACHABLE);
  }
  if (!response.ok) throw new api.ApiError(response.status, `HTTP ${response.status}`);
  return response.json();
}

const MODE_NAMES = { partnership: "Partners", individual: "Individual" };

function pct(value) {
  return value === null || value === undefined ? "" : ` (${Math.round(value)}%)`;
}

function fixed(value, digits) {
  return value === null || value === undefined ? "–" : value.toFixed(digits);
}

// Each row: its label and what a mode's figures show in it.
const STAT_ROWS = [
  ["Games", (m) => `${m.games}`],
  ["Won", (m) => `${m.won}${pct(m.won_pct)}`],
  ["Hands", (m) => `${m.hands}`],
  ["Contracts made", (m) => `${m.contracts_made} of ${m.contracts_bid}${pct(m.contracts_made_pct)}`],
  ["Nil made", (m) => `${m.nils_made} of ${m.nils_bid}`],
  ["Blind nil made", (m) => `${m.blind_nils_made} of ${m.blind_nils_bid}`],
  ["Bags per hand", (m) => fixed(m.bags_per_hand, 2)],
  ["Sets taken", (m) => `${m.sets}`],
  ["Points per hand", (m) => fixed(m.points_per_hand, 1)],
];

function statsView(model) {
  if (model.statsError) return h("p", { class: "muted small" }, `Couldn't load the statistics: ${model.statsError}`);
  if (!model.stats) return null;
  const modes = model.stats.modes.filter((m) => m.games > 0);
  if (!modes.length) return null;
  return h("div", { class: "stats" },
    h("h2", { id: "stats-title" }, "Statistics"),
    h("table", { class: "stats-table", "aria-labelledby": "stats-title" },
      h("thead", {}, h("tr", {}, h("td", {}), modes.map((m) => h("th", { scope: "col" }, MODE_NAMES[m.mode] || m.mode)))),
      h("tbody", {}, STAT_ROWS.map(([label, show]) =>
        h("tr", { "data-key": `stat-${label}` }, h("th", { scope: "row" }, label), modes.map((m) => h("td", {}, show(m))))))));
}

function privacySwitch(model) {
  const status = model.saveError
    ? h("p", { class: "form-error", id: "show-games-status", role: "alert" }, model.saveError)
    : h("p", { class: "muted small", id: "show-games-status" }, model.saving ? "Saving…" : model.saved || "");
  return h("div", { class: "privacy" },
    h("label", { class: "check", for: "show-games" },
      h("input", {
        type: "checkbox", role: "switch", id: "show-games", "data-key": "show-games", checked: model.public,
        "aria-describedby": "show-games-hint show-games-status",
      }),
      h("span", {}, "Show my games to others")),
    h("p", { class: "muted small", id: "show-games-hint" },
      model.public ? "Anyone with this page's address sees your finished games." : "Only you see this page."),
    status);
}

function pageView(model) {
  if (model.hidden) {
    return h("section", { class: "card-panel center-box", "aria-labelledby": "player-title" },
      h("h1", { id: "player-title" }, "Finished games"),
      h("p", {}, "This player's games are private."),
      h("a", { class: "btn primary", href: "/" }, "Back to home"));
  }
  if (model.error) {
    return h("section", { class: "card-panel center-box" }, h("h1", {}, "Couldn't load the games"), h("p", {}, model.error), h("a", { class: "btn primary", href: "/" }, "Back to home"));
  }
  if (!model.player) return h("section", { class: "card-panel center-box" }, h("p", { class: "muted" }, "Loading the games…"));
  const mine = myId() === model.player.id;
  const title = mine ? "Your finished games" : `${model.player.name || "A player"}'s finished games`;
  return h("section", { class: "card-panel", "aria-labelledby": "player-title" },
    h("h1", { id: "player-title" }, title),
    mine ? privacySwitch(model) : null,
    ratingsView(model.ratings, model.ratingsError),
    statsView(model),
    model.games.length
      ? h("ul", { class: "room-list", "aria-label": "Finished games, newest first" }, model.games.map(gameItem))
      : h("p", { class: "muted" }, mine ? "No finished game yet. Play one!" : "No finished game yet."),
    model.next ? h("button", { type: "button", class: "btn", "data-action": "more-games", "data-key": "more-games", disabled: model.loading }, "Older games") : null,
    h("p", {}, h("a", { href: "/" }, "Back to home")));
}

export function startPlayerPage(main, playerId) {
  const model = {
    player: null, games: [], next: null, loading: false, error: null, hidden: false, stats: null, statsError: null,
    ratings: null, ratingsError: null,
    public: false, saving: false, saved: null, saveError: null,
  };
  document.title = "Spades · Finished games";
  const render = () => mount(main, pageView(model));

  const load = async (before) => {
    model.loading = true;
    render();
    try {
      const data = await api.playerGames(playerId, before);
      if (!model.player) model.public = data.player.public;
      model.player = data.player;
      model.games = [...model.games, ...data.games];
      model.next = data.next_before;
    } catch (err) {
      // A private player's page and an unknown player's answer alike, on purpose.
      if (err.status === 404) model.hidden = true;
      else model.error = err.message;
    }
    model.loading = false;
    render();
  };

  // The switch saves at once; changes made while one is being saved follow it, the last
  // one winning. A failed save puts the switch back to what the server keeps.
  let kept = null;
  const save = async () => {
    if (model.saving) return;
    model.saving = true;
    model.saveError = null;
    render();
    while (model.public !== kept) {
      try {
        kept = (await api.updateMe({ public: model.public })).public;
        model.saved = kept ? "Saved: others can see your games." : "Saved: your games are private.";
        announce(model.saved);
      } catch (err) {
        model.public = kept;
        model.saved = null;
        model.saveError = `Couldn't save your choice: ${err.message}`;
        break;
      }
    }
    model.saving = false;
    render();
  };

  main.addEventListener("change", (event) => {
    if (event.target.id !== "show-games") return;
    if (kept === null) kept = model.public;
    model.public = event.target.checked;
    save();
  });

  main.addEventListener("click", (event) => {
    const el = event.target.closest("[data-action='more-games']");
    if (el && !model.loading && model.next) load(model.next);
  });
  load(null);
  fetchStats(playerId).then(
    (data) => { model.stats = data; render(); },
    (err) => { if (err.status !== 404) { model.statsError = err.message; render(); } });
  fetchRatings(playerId).then(
    (data) => { model.ratings = data; render(); },
    (err) => { if (err.status !== 404) { model.ratingsError = err.message; render(); } });
}
