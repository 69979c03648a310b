// A player's ratings (GET /api/players/{id}/ratings): the shown rating per mode, and its
// history as a small SVG line chart, one line per mode. Used by the player page.

import * as api from "./api.js";
import { h, s } from "./dom.js";

const MODE_NAMES = { partnership: "Partners", individual: "Individual" };
const WIDTH = 320;
const HEIGHT = 120;
const PAD = 24;

/** The player's ratings, or throws api.ApiError (404: private or unknown). */
export async function fetchRatings(playerId) {
  let response;
  try {
    response = await fetch(`/api/players/${encodeURIComponent(playerId)}/ratings`, { headers: api.playerHeaders() });
  } catch {
    throw new api.ApiError(0, api.UNREACHABLE);
  }
  if (!response.ok) throw new api.ApiError(response.status, `HTTP ${response.status}`);
  return response.json();
}

// One mode's points: the rating before its first rated game, then after each.
function series(history, mode) {
  const points = history.filter((p) => p.mode === mode);
  if (!points.length) return [];
  return [points[0].before, ...points.map((p) => p.after)];
}

/** The chart of the history (null when there is nothing to draw). */
export function ratingChart(history) {
  const lines = ["partnership", "individual"].map((mode) => [mode, series(history, mode)]).filter(([, v]) => v.length > 1);
  if (!lines.length) return null;
  const all = lines.flatMap(([, v]) => v);
  const low = Math.min(...all);
  const high = Math.max(...all, low + 1);
  const longest = Math.max(...lines.map(([, v]) => v.length));
  const x = (i) => PAD + (i * (WIDTH - 2 * PAD)) / Math.max(1, longest - 1);
  const y = (r) => HEIGHT - PAD / 2 - ((r - low) * (HEIGHT - PAD)) / (high - low);
  const summary = lines.map(([mode, v]) => `${MODE_NAMES[mode]}: ${v[0]} to ${v[v.length - 1]} over ${v.length - 1} games`).join("; ");
  return s("svg", {
    class: "rating-chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: WIDTH, height: HEIGHT, role: "img",
    "aria-label": `Rating history. ${summary}`, "data-testid": "rating-chart",
  },
  s("text", { x: 2, y: y(high) + 4, class: "rating-axis" }, String(high)),
  s("text", { x: 2, y: y(low), class: "rating-axis" }, String(low)),
  lines.map(([mode, v]) => s("polyline", {
    class: `rating-line rating-${mode}`, fill: "none",
    points: v.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" "),
  })));
}

/** The ratings block of the player page. */
export function ratingsView(ratings, error) {
  if (error) return h("p", { class: "muted small" }, `Couldn't load the ratings: ${error}`);
  if (!ratings) return null;
  const rated = ratings.modes.filter((m) => m.games > 0);
  if (!rated.length) return null;
  return h("div", { class: "ratings", "data-testid": "ratings" },
    h("h2", { id: "ratings-title" }, "Rating"),
    h("ul", { class: "rating-list", "aria-labelledby": "ratings-title" }, rated.map((m) =>
      h("li", { "data-key": `rating-${m.mode}` },
        h("strong", {}, `${MODE_NAMES[m.mode] || m.mode}: ${m.rating}`),
        m.provisional ? h("span", { class: "muted small" }, " (provisional)") : null,
        h("span", { class: "muted small" }, ` · ${m.games} rated game${m.games === 1 ? "" : "s"}${m.rank ? ` · #${m.rank}` : ""}`)))),
    ratingChart(ratings.history));
}
