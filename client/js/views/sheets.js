// The result sheet after each hand and the game-over screen with its score chart.

import { h, s } from "../dom.js";
import { bidText } from "../cards.js";
import { sideName, who } from "../state.js";
import { sideSeats } from "./score.js";

function dialog(labelId, className, ...children) {
  return h("div", { class: "overlay" },
    h("div", { class: ["sheet", className], role: "dialog", "aria-modal": "true", "aria-labelledby": labelId }, ...children));
}

export function handSheet(state) {
  const { room, view } = state;
  const entry = state.sheet.entry;
  const sides = entry.scores.map((_, i) => i);
  const last = view.phase === "over" && state.sheet.index === view.history.length - 1;
  return dialog("sheet-title", "hand-sheet",
    h("h2", { id: "sheet-title" }, `Hand ${entry.hand} result`),
    h("table", { class: "result-table" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, view.mode === "partnership" ? "Team" : "Player"),
        h("th", { scope: "col" }, "Bid"),
        h("th", { scope: "col" }, "Won"),
        h("th", { scope: "col" }, "Points"),
        h("th", { scope: "col" }, "Bags"),
        h("th", { scope: "col" }, "Score"))),
      h("tbody", {}, sides.map((side) => {
        const seats = sideSeats(view, side);
        const penalty = entry.bag_penalty[side];
        const notes = [];
        seats.forEach((seat) => {
          const bid = entry.bids[seat];
          if (bid === "nil" || bid === "blind nil") {
            notes.push(`${who(room, seat)}: ${bidText(bid)} ${entry.tricks[seat] === 0 ? "made" : "failed"}`);
          }
        });
        if (penalty) notes.push(`bag penalty ${penalty}`);
        const points = entry.points[side];
        return h("tr", {},
          h("th", { scope: "row" }, sideName(room, view, side), notes.length ? h("div", { class: "small muted" }, notes.join(" · ")) : null),
          h("td", {}, seats.map((seat) => bidText(entry.bids[seat])).join(" + ")),
          h("td", {}, String(seats.reduce((n, seat) => n + entry.tricks[seat], 0))),
          h("td", { class: ["num", points < 0 ? "neg" : "pos"] }, points > 0 ? `+${points}` : String(points)),
          h("td", { class: "num" }, `+${entry.bags_added[side]} (${entry.bags[side]})`),
          h("td", { class: "num strong" }, String(entry.scores[side])));
      }))),
    h("div", { class: "sheet-actions" },
      h("button", { type: "button", class: "btn primary", "data-action": "close-sheet", "data-key": "close-sheet" }, last ? "See final results" : "Continue")));
}

const SERIES = [
  { color: "var(--c0)", dash: "", marker: "circle" },
  { color: "var(--c1)", dash: "6 4", marker: "square" },
  { color: "var(--c2)", dash: "2 3", marker: "diamond" },
  { color: "var(--c3)", dash: "10 3 2 3", marker: "triangle" },
];

function marker(kind, x, y, color) {
  if (kind === "square") return s("rect", { x: x - 3.5, y: y - 3.5, width: 7, height: 7, fill: color });
  if (kind === "diamond") return s("path", { d: `M${x} ${y - 4.5}L${x + 4.5} ${y}L${x} ${y + 4.5}L${x - 4.5} ${y}Z`, fill: color });
  if (kind === "triangle") return s("path", { d: `M${x} ${y - 4.5}L${x + 4.5} ${y + 3.5}L${x - 4.5} ${y + 3.5}Z`, fill: color });
  return s("circle", { cx: x, cy: y, r: 3.8, fill: color });
}

/** Running score per side after each hand, as an inline SVG line chart. */
export function scoreChart(room, view) {
  const history = view.history;
  const sides = view.scores.map((_, i) => i);
  const series = sides.map((side) => [0, ...history.map((entry) => entry.scores[side])]);
  const all = series.flat().concat([view.rules.target, 0]);
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  const W = 520;
  const H = 240;
  const pad = { l: 44, r: 14, t: 14, b: 30 };
  const n = Math.max(1, history.length);
  const x = (i) => pad.l + (i / n) * (W - pad.l - pad.r);
  const y = (v) => pad.t + (1 - (v - lo) / (hi - lo || 1)) * (H - pad.t - pad.b);
  const ticks = niceTicks(lo, hi, 5);
  const desc = sides.map((side) => `${sideName(room, view, side)}: ${series[side].slice(1).join(", ")}`).join("; ");
  return h("figure", { class: "chart" },
    s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "chart-title chart-desc", class: "score-chart" },
      s("title", { id: "chart-title" }, "Score by hand"),
      s("desc", { id: "chart-desc" }, desc),
      ticks.map((t) => s("g", {},
        s("line", { x1: pad.l, x2: W - pad.r, y1: y(t), y2: y(t), class: t === 0 ? "axis zero" : "grid" }),
        s("text", { x: pad.l - 6, y: y(t) + 4, "text-anchor": "end", class: "tick" }, String(t)))),
      s("line", { x1: pad.l, x2: W - pad.r, y1: y(view.rules.target), y2: y(view.rules.target), class: "target-line" }),
      s("text", { x: pad.l + 4, y: y(view.rules.target) - 4, "text-anchor": "start", class: "tick target" }, `target ${view.rules.target}`),
      Array.from({ length: n + 1 }, (_, i) => s("text", { x: x(i), y: H - 10, "text-anchor": "middle", class: "tick" }, String(i))),
      sides.map((side) => {
        const style = SERIES[side];
        const points = series[side].map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
        return s("g", { class: "series" },
          s("polyline", { points, fill: "none", stroke: style.color, "stroke-width": 2.5, "stroke-dasharray": style.dash || null, "stroke-linejoin": "round" }),
          series[side].map((v, i) => marker(style.marker, x(i), y(v), style.color)));
      })),
    h("figcaption", { class: "legend" },
      sides.map((side) => h("span", { class: "legend-item" },
        s("svg", { width: 26, height: 12, "aria-hidden": "true" },
          s("line", { x1: 1, x2: 25, y1: 6, y2: 6, stroke: SERIES[side].color, "stroke-width": 2.5, "stroke-dasharray": SERIES[side].dash || null }),
          marker(SERIES[side].marker, 13, 6, SERIES[side].color)),
        sideName(room, view, side)))));
}

function niceTicks(lo, hi, count) {
  const span = hi - lo || 1;
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((st) => span / st <= count) || 10 * mag;
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) out.push(Math.round(t));
  return out;
}

export function gameOver(state) {
  const { room, view } = state;
  const sides = view.scores.map((_, i) => i).sort((a, b) => view.scores[b] - view.scores[a]);
  const me = room.you;
  const mySide = me === null ? null : (view.mode === "partnership" ? me % 2 : me);
  const won = mySide !== null && mySide === view.winner;
  const title = won ? (view.mode === "partnership" ? "Your team wins!" : "You win!") : `${sideName(room, view, view.winner)} ${view.mode === "individual" && room.you === view.winner ? "win" : "wins"}`;
  return dialog("over-title", "game-over",
    h("p", { class: "eyebrow" }, view.time_up ? "Game over · time is up" : "Game over"),
    h("h2", { id: "over-title" }, title),
    h("ol", { class: "final-scores" }, sides.map((side) => h("li", { class: side === view.winner ? "winner" : null },
      h("span", {}, sideName(room, view, side)),
      h("strong", {}, String(view.scores[side]))))),
    scoreChart(room, view),
    h("details", { class: "by-hand" },
      h("summary", {}, "Score by hand"),
      h("table", { class: "result-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Hand"), view.scores.map((_, side) => h("th", { scope: "col" }, sideName(room, view, side))))),
        h("tbody", {}, view.history.map((entry) => h("tr", {},
          h("th", { scope: "row" }, String(entry.hand)),
          entry.scores.map((score, side) => h("td", { class: "num" }, `${score} (${entry.points[side] > 0 ? "+" : ""}${entry.points[side]})`))))))),
    h("div", { class: "sheet-actions" },
      me !== null ? h("button", { type: "button", class: "btn primary big", "data-action": "play-again", "data-key": "play-again" }, state.playAgainAsked ? "Waiting for the others…" : "Play again") : null,
      h("a", { class: "btn", href: "/" }, "Home")));
}
