// The result sheet after each hand and the game-over screen with its score chart.

import { h, s } from "../dom.js";
import { bidText, cardName, parseCard } from "../cards.js";
import { sideName, who, myClockRuns } from "../state.js";
import { awayNotice, countdown, ratingChangeText } from "./common.js";
import { sideSeats, mySideOf } from "./score.js";

// A dialog opens at its top: room.js focuses its heading (tabindex -1), not a button at the
// bottom that would scroll the heading out of view on a small screen. Drawn again for a new
// state, it keeps its scroll (data-keep-scroll) and the focus (its heading's data-key).
export function dialog(labelId, className, ...children) {
  return h("div", { class: "overlay" },
    h("div", { class: ["sheet", className], role: "dialog", "aria-modal": "true", "aria-labelledby": labelId, "data-key": `dialog-${className}`, "data-keep-scroll": "1" }, ...children));
}

/** Asked when the logo is clicked during a game of yours: stay (the focus) or go home. */
export function leaveDialog() {
  return dialog("leave-title", "leave-confirm",
    h("h2", { id: "leave-title", tabindex: "-1", "data-key": "leave-title" }, "Leave this game?"),
    h("p", {}, "Your seat stays yours: the bot plays it while you are away. The home page offers to return to your game."),
    h("div", { class: "sheet-actions" },
      h("button", { type: "button", class: "btn primary", "data-action": "stay-here", "data-key": "stay-here" }, "Stay at the table"),
      h("a", { class: "btn", href: "/", "data-key": "leave-now" }, "Leave the game")));
}

/** Inside a dialog: your turn clock, and the way back to the table. */
function turnAlert(state) {
  if (!myClockRuns(state)) return null;
  return h("div", { class: "turn-alert", role: "status" },
    h("span", {}, "Your turn · ", countdown(state.clock.turn_deadline, "Time left for your turn")),
    h("button", { type: "button", class: "btn small primary", "data-action": "close-score-sheet" }, "Back to the table"));
}

/** A column head that a phone shows abbreviated ("Pts"); the whole word stays its name. */
function colHead(full, short, className = null) {
  return h("th", { scope: "col", class: className },
    h("span", { class: "col-long" }, full),
    h("span", { class: "col-short", "aria-hidden": "true" }, short));
}

/** A side's name in a result table: one line per seat ("Ann &" / "Bob"), each wrapping. */
function sideLabel(room, view, side) {
  const seats = sideSeats(view, side);
  return seats.map((seat, i) => h("span", { class: "side-seat" }, who(room, seat), i < seats.length - 1 ? " &" : ""));
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/**
 * The hand result, folded into a strip above the table: used while your own turn clock
 * runs, so the sheet never hides the countdown or the bidding panel (docs/protocol.md).
 */
export function resultStrip(state) {
  const { room, view } = state;
  const entry = state.sheet.entry;
  return h("section", { class: "result-strip", "aria-labelledby": "strip-title" },
    h("h2", { id: "strip-title", class: "strip-title" }, `Hand ${entry.hand} result`),
    h("ul", {}, entry.scores.map((score, side) => h("li", {},
      `${sideName(room, view, side)} `, h("b", {}, signed(entry.points[side])), ` → ${score}`))),
    h("button", { type: "button", class: "btn small", "data-action": "open-score-sheet" }, "Score sheet"),
    h("button", { type: "button", class: "btn small ghost", "data-action": "close-sheet", "aria-label": "Dismiss the hand result" }, "Dismiss"));
}

function lastTrickOfHand(room, view, hand) {
  const trick = view.last_trick;
  if (!trick || trick.hand !== hand) return null;
  return h("div", { class: "sheet-trick" },
    h("h3", { class: "small" }, "Last trick"),
    h("ul", {}, trick.cards.map(({ seat, card }) => h("li", { class: seat === trick.winner ? "winner" : null },
      cardFaceMini(card), h("span", {}, who(room, seat), seat === trick.winner ? " · won" : "")))));
}

function cardFaceMini(code) {
  const card = parseCard(code);
  const red = card.red;
  const suit = card.symbol;
  const label = card.label;
  // The same name as everywhere else ("Eight of Clubs", not "8 of Clubs").
  return h("span", { class: ["mini-card", red ? "red" : null] },
    h("span", { "aria-hidden": "true" }, `${label}${suit}`),
    h("span", { class: "sr-only" }, cardName(code)), " ");
}

export function handSheet(state) {
  const { room, view } = state;
  const entry = state.sheet.entry;
  const sides = entry.scores.map((_, i) => i);
  const last = view.phase === "over" && state.sheet.index === view.history.length - 1;
  return dialog("sheet-title", "hand-sheet",
    turnAlert(state),
    awayNotice(state, "back-sheet"),
    h("h2", { id: "sheet-title", tabindex: "-1", "data-key": "sheet-title" }, `Hand ${entry.hand} result`),
    h("table", { class: "result-table" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, view.mode === "partnership" ? "Team" : "Player"),
        h("th", { scope: "col" }, "Bid"),
        h("th", { scope: "col" }, "Won"),
        colHead("Points", "Pts", "num"),
        h("th", { scope: "col", class: "num" }, "Bags"),
        h("th", { scope: "col", class: "num" }, "Score"))),
      h("tbody", {}, sides.map((side) => {
        const seats = sideSeats(view, side);
        const penalty = entry.bag_penalty[side];
        const notes = [];
        seats.forEach((seat) => {
          const bid = entry.bids[seat];
          if (bid === "nil" || bid === "blind nil") {
            // In partnership the note says whose nil; a player's own row needs no name.
            const what = `${bidText(bid)} ${entry.tricks[seat] === 0 ? "made" : "failed"}`;
            notes.push(seats.length > 1 ? `${who(room, seat)}: ${what}` : what);
          }
        });
        if (penalty) notes.push(`bag penalty ${penalty}`);
        const points = entry.points[side];
        return h("tr", {},
          h("th", { scope: "row", class: "side-cell" }, sideLabel(room, view, side), notes.length ? h("div", { class: "small muted" }, notes.join(" · ")) : null),
          h("td", {}, seats.map((seat) => bidText(entry.bids[seat])).join(" + ")),
          h("td", {}, String(seats.reduce((n, seat) => n + entry.tricks[seat], 0))),
          h("td", { class: ["num", points < 0 ? "neg" : "pos"] }, points > 0 ? `+${points}` : String(points)),
          h("td", { class: "num" }, `+${entry.bags_added[side]} (${entry.bags[side]})`),
          h("td", { class: "num strong" }, String(entry.scores[side])));
      }))),
    lastTrickOfHand(room, view, entry.hand),
    // Continue first: one Tab from the heading (which has the focus) reaches it.
    h("div", { class: "sheet-actions" },
      h("button", { type: "button", class: "btn primary", "data-action": "close-sheet", "data-key": "close-sheet" }, last ? "See final results" : "Continue"),
      h("button", { type: "button", class: "btn", "data-action": "open-score-sheet", "data-key": "sheet-score-sheet" }, "Score sheet")));
}

/** Every hand so far: bids, tricks, points, bags and the running score of each side. */
export function scoreTable(room, view, history) {
  const sides = view.scores.map((_, i) => i);
  const mySide = mySideOf(room, view);
  if (!history.length) return h("p", { class: "muted" }, "No hand has finished yet.");
  // Named, and focusable when it is wider than its box (dom.js, focusWideTables), so a
  // keyboard can scroll to what is hidden.
  return h("div", { class: "table-scroll", role: "region", "aria-label": "Score by hand" },
    h("table", { class: "result-table score-sheet-table" },
      h("caption", { class: "sr-only" }, "Score by hand"),
      h("thead", {}, h("tr", {},
        colHead("Hand", "#"),
        h("th", { scope: "col" }, view.mode === "partnership" ? "Team" : "Player"),
        h("th", { scope: "col" }, "Bid"),
        h("th", { scope: "col" }, "Won"),
        colHead("Points", "Pts", "num"),
        h("th", { scope: "col", class: "num" }, "Bags"),
        h("th", { scope: "col", class: "num" }, "Score"))),
      history.map((entry) => h("tbody", { class: "hand-group" }, sides.map((side, i) => {
        const seats = sideSeats(view, side);
        const penalty = entry.bag_penalty[side];
        return h("tr", { class: side === mySide ? "mine" : null },
          i === 0 ? h("th", { scope: "rowgroup", rowspan: String(sides.length) }, String(entry.hand)) : null,
          h("th", { scope: "row", class: "side-cell" }, sideLabel(room, view, side)),
          h("td", {}, seats.map((seat) => bidText(entry.bids[seat])).join(" + ")),
          h("td", {}, seats.map((seat) => String(entry.tricks[seat])).join(" + ")),
          h("td", { class: ["num", entry.points[side] < 0 ? "neg" : "pos"] }, signed(entry.points[side]), penalty ? h("span", { class: "small penalty" }, ` (bag penalty ${penalty})`) : null),
          h("td", { class: "num" }, `+${entry.bags_added[side]} (${entry.bags[side]})`),
          h("td", { class: "num strong" }, String(entry.scores[side])));
      })))));
}

/** The score sheet dialog. It opens at its top: the focus goes to its heading (room.js), and
 * the totals after the latest hand stand under it, above the hand-by-hand table. */
export function scoreSheet(state) {
  const { room, view } = state;
  const latest = view.history.length ? view.history[view.history.length - 1] : null;
  return dialog("score-sheet-title", "score-sheet",
    turnAlert(state),
    h("div", { class: "panel-head" },
      h("h2", { id: "score-sheet-title", tabindex: "-1", "data-key": "score-sheet-title" }, "Score sheet"),
      h("span", { class: "muted small" }, `to ${view.rules.target}`)),
    latest ? h("p", { class: "sheet-totals" }, `After hand ${latest.hand}: `,
      latest.scores.map((score, side) => h("span", { class: "sheet-total" },
        sideName(room, view, side), " ", h("b", {}, String(score)), side < latest.scores.length - 1 ? " · " : ""))) : null,
    scoreTable(room, view, view.history),
    view.history.length ? scoreChart(room, view) : null,
    h("div", { class: "sheet-actions" },
      h("button", { type: "button", class: "btn primary", "data-action": "close-score-sheet", "data-key": "close-score-sheet" }, "Close")));
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
  // The drawing is scaled to the sheet's width: a narrower drawing on a phone keeps its
  // labels near their 11 px (at 520 wide they shrank to 7 px on a 390 px screen).
  const W = typeof window !== "undefined" && window.innerWidth < 600 ? 360 : 520;
  const H = W === 520 ? 240 : 220;
  const pad = { l: 44, r: 14, t: 14, b: 30 };
  const n = Math.max(1, history.length);
  // Every hand's number while they fit (about 24 units each), else every second, fifth...
  const every = [1, 2, 5, 10, 20, 50].find((k) => ((W - pad.l - pad.r) / n) * k >= 24) || 100;
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
      Array.from({ length: n + 1 }, (_, i) => (i === n || (i % every === 0 && n - i >= every / 2)
        ? s("text", { x: x(i), y: H - 10, "text-anchor": "middle", class: "tick" }, String(i))
        : null)),
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

/** The game-over screen. `past`: the game before the one now played ("Last game's results"),
 * drawn over the table of `live`, the page's own state (whose turn clock may run). */
export function gameOver(state, { past = false, live = null } = {}) {
  const { room, view } = state;
  const sides = view.scores.map((_, i) => i).sort((a, b) => view.scores[b] - view.scores[a]);
  const me = room.you;
  const mySide = me === null ? null : (view.mode === "partnership" ? me % 2 : me);
  const won = mySide !== null && mySide === view.winner;
  const title = won ? (view.mode === "partnership" ? "Your team wins!" : "You win!") : `${sideName(room, view, view.winner)} ${view.mode === "partnership" || room.you === view.winner ? "win" : "wins"}`;
  return dialog("over-title", "game-over",
    live ? turnAlert(live) : null,
    h("p", { class: "eyebrow" }, past ? "Last game's results" : (view.time_up ? "Game over · time is up" : "Game over")),
    h("h2", { id: "over-title", tabindex: "-1", "data-key": "over-title" }, title),
    h("ol", { class: "final-scores" }, sides.map((side) => h("li", { class: side === view.winner ? "winner" : null },
      h("span", {}, sideName(room, view, side),
        side === view.winner ? h("span", { class: "tag win-tag" }, "Winner") : null,
        side === mySide && view.mode === "partnership" ? h("span", { class: "tag you-tag" }, "Your team") : null),
      h("strong", {}, String(view.scores[side]))))),
    past ? h("p", { class: "muted small" }, "A new game has started since; this is how the last one ended.") : null,
    past ? null : myRatingChange(room),
    past ? null : againNote(room),
    // The buttons under the final scores, the main one first: in view without scrolling on a
    // phone, and one Tab from the heading (which has the focus).
    h("div", { class: "sheet-actions over-actions" },
      me !== null && !past ? h("button", { type: "button", class: "btn primary big", "data-action": "play-again", "data-key": "play-again" }, state.playAgainAsked || (room.again || []).includes(me) ? "Waiting for the others…" : "Play again") : null,
      past ? h("button", { type: "button", class: "btn primary", "data-action": "close-last-game", "data-key": "close-last-game" }, "Back to the new game") : null,
      room.game_id !== null && room.game_id !== undefined
        ? h("a", { class: "btn", href: reviewHref(room.game_id, room.code), "data-key": "review-game" }, "Review this game")
        : null,
      past ? null : h("a", { class: "btn", href: "/" }, "Home"),
      past ? null : h("button", { type: "button", class: "btn ghost", "data-action": "close-over", "data-key": "close-over" }, "Close")),
    past ? null : ratingChanges(room),
    scoreChart(room, view),
    h("details", { class: "by-hand", "data-key": "by-hand", "data-keep-open": "" },
      h("summary", {}, "Score sheet by hand"),
      scoreTable(room, view, view.history)),
    past ? null : pastGames(state));
}

/** After a rated game: your own rating's change, in one line above the buttons. */
function myRatingChange(room) {
  const mine = (room.rating_changes || []).find((c) => c.seat === room.you);
  if (!mine) return null;
  return h("p", { class: "my-rating-change", "data-testid": "my-rating-change" },
    "Your rating: ", h("strong", {}, ratingChangeText(mine.before, mine.after)),
    room.seats[mine.seat].provisional ? h("span", { class: "muted small" }, " (provisional)") : null);
}

/** After a rated game: each rated player's rating before and after it. */
function ratingChanges(room) {
  const changes = room.rating_changes || [];
  if (!changes.length) return null;
  return h("section", { class: "rating-changes", "aria-labelledby": "rating-changes-title", "data-testid": "rating-changes" },
    h("h3", { id: "rating-changes-title", class: "small" }, "Ratings"),
    h("ul", {}, changes.map((c) => {
      const down = c.after < c.before;
      return h("li", { class: c.seat === room.you ? "mine" : null },
        h("span", { class: "name" }, who(room, c.seat)),
        h("span", { class: ["rating-change", down ? "down" : "up"] }, ratingChangeText(c.before, c.after),
          room.seats[c.seat].provisional ? h("span", { class: "muted small" }, " (provisional)") : null));
    })));
}

/** Who asked for the next game (it starts once every player here has asked), and who the
 * table still waits for. */
function againNote(room) {
  const asked = room.again || [];
  if (!asked.length) return null;
  const waiting = [0, 1, 2, 3].filter((seat) => {
    const info = room.seats[seat];
    return info.kind === "human" && info.connected && !asked.includes(seat);
  });
  const names = (seats) => seats.map((seat) => who(room, seat)).join(", ");
  const text = `${names(asked)} ${asked.length === 1 && asked[0] !== room.you ? "wants" : "want"} to play again` +
    (waiting.length ? ` · waiting for ${names(waiting)}` : "");
  return h("p", { class: "again-note", role: "status", "data-key": "again-note" }, text);
}

/** A game's review page; `?room=` lets it link back to a room the record does not name (a
 * private room's record leaves its code out: the code is that room's only key). */
function reviewHref(gameId, code) {
  return code ? `/?room=${encodeURIComponent(code)}#review/${gameId}` : `/#review/${gameId}`;
}

/** Links to the review of each finished game of this room, with each side's final score. */
export function pastGames(state) {
  const games = state.pastGames;
  if (!games || !games.length) return null;
  return h("section", { class: "past-games", "aria-labelledby": "past-title" },
    h("h3", { id: "past-title", class: "small" }, "Past games in this room"),
    h("ul", {}, games.map((game, i) => h("li", {},
      h("a", { href: reviewHref(game.game_id, state.room && state.room.code) }, `Review game ${i + 1}`),
      game.scores ? h("span", { class: "muted small" }, " · ", pastScores(state.room, game)) : null))));
}

// "You & Bob 118 · Ann & Cat 146 (won)": the scores of a past game by side. The summary has
// no names: they are the seats' names now (a game of two scores was played in partners).
function pastScores(room, game) {
  const teams = game.scores.length === 2;
  return game.scores.map((score, side) => {
    const name = teams ? `${who(room, side)} & ${who(room, side + 2)}` : who(room, side);
    const won = game.winner === side;
    return h("span", { class: ["past-side", won ? "strong" : null] }, `${name} ${score}${won ? " (won)" : ""}`, side < game.scores.length - 1 ? " · " : "");
  });
}
