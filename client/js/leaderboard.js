// The leaderboard page, /#leaderboard[/{mode}]: the best players of a mode
// (GET /api/leaderboard), a page at a time, with this browser's player's own rating and
// place. Private players keep their place, shown without a name.

import * as api from "./api.js";
import { h, mount } from "./dom.js";
import { myId } from "./player.js";

const MODES = [["partnership", "Partners"], ["individual", "Individual"]];
const PAGE = 25;

async function fetchBoard(mode, offset) {
  let response;
  try {
    const query = `mode=${encodeURIComponent(mode)}&offset=${offset}&limit=${PAGE}`;
    response = await fetch(`/api/leaderboard?${query}`, { headers: api.playerHeaders() });
  } catch {
    throw new api.ApiError(0, api.UNREACHABLE);
  }
  if (!response.ok) throw new api.ApiError(response.status, `HTTP ${response.status}`);
  return response.json();
}

function entryRow(entry) {
  const me = entry.player && entry.player.id === myId();
  const name = entry.player
    ? h("a", { href: `/#player/${encodeURIComponent(entry.player.id)}` }, entry.player.name || "A player")
    : h("span", { class: "muted" }, "Private player");
  return h("tr", { "data-key": `rank-${entry.rank}`, class: me ? "me" : null },
    h("td", {}, `${entry.rank}`), h("td", {}, name, me ? " (you)" : null),
    h("td", {}, `${entry.rating}`), h("td", {}, `${entry.games}`));
}

function youView(board) {
  if (!board || !board.you) return null;
  const you = board.you;
  const place = you.rank ? `#${you.rank} of ${board.total}` : `not ranked yet (${board.min_games} rated games needed)`;
  return h("p", { class: "leaderboard-you", "data-testid": "leaderboard-you" },
    `You: ${you.rating}${you.provisional ? " (provisional)" : ""} · ${place}`);
}

function pageView(model) {
  const board = model.board;
  return h("section", { class: "card-panel", "aria-labelledby": "leaderboard-title" },
    h("h1", { id: "leaderboard-title" }, "Leaderboard"),
    h("div", { class: "leaderboard-modes", role: "group", "aria-label": "Mode" },
      MODES.map(([mode, label]) => h("a", {
        class: ["btn small", mode === model.mode ? "primary" : "ghost"], href: `/#leaderboard/${mode}`,
        "aria-current": mode === model.mode ? "page" : null,
      }, label))),
    youView(board),
    model.error ? h("p", { class: "form-error", role: "alert" }, `Couldn't load the leaderboard: ${model.error}`) : null,
    !board && !model.error ? h("p", { class: "muted" }, "Loading…") : null,
    board && board.entries.length
      ? h("table", { class: "stats-table leaderboard", "aria-labelledby": "leaderboard-title" },
        h("thead", {}, h("tr", {}, ["#", "Player", "Rating", "Games"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, board.entries.map(entryRow)))
      : null,
    board && !board.entries.length ? h("p", { class: "muted" }, `Nobody has ${board.min_games} rated games in this mode yet.`) : null,
    board
      ? h("div", { class: "leaderboard-pages" },
        board.offset > 0 ? h("button", { type: "button", class: "btn small", "data-action": "page", "data-offset": Math.max(0, board.offset - PAGE), "data-key": "prev" }, "Better") : null,
        board.offset + board.entries.length < board.total
          ? h("button", { type: "button", class: "btn small", "data-action": "page", "data-offset": board.offset + PAGE, "data-key": "next" }, "More")
          : null)
      : null,
    h("p", {}, h("a", { href: "/" }, "Back to home")));
}

export function startLeaderboard(main, mode) {
  const model = { mode: MODES.some(([m]) => m === mode) ? mode : "partnership", board: null, error: null };
  document.title = "Spades · Leaderboard";
  const render = () => mount(main, pageView(model));
  const load = async (offset) => {
    try {
      model.board = await fetchBoard(model.mode, offset);
      model.error = null;
    } catch (err) {
      model.error = err.message;
    }
    render();
  };
  main.addEventListener("click", (event) => {
    const el = event.target.closest("[data-action='page']");
    if (el) load(Number(el.dataset.offset));
  });
  render();
  load(0);
}
