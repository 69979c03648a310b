// The scoreboard: each side's bid and tricks this hand, score, bags, and the target.
// Marks say what they mean in words: "You" tags the viewer's side, "Leading" the side
// ahead; the progress bars carry their own label and a target mark.

import { h } from "../dom.js";
import { bidText } from "../cards.js";
import { who } from "../state.js";

export function sideSeats(view, side) {
  return view.mode === "partnership" ? [side, side + 2] : [side];
}

function sideBid(view, seats) {
  const bids = seats.map((s) => view.bids[s]);
  if (bids.every((b) => b === null)) return "–";
  return bids.map((b) => (b === null ? "?" : bidText(b))).join(" + ");
}

/** "8 of 10 bags" when a side is within two bags of the penalty, else null. */
export function bagWarning(view, side) {
  const limit = view.rules && view.rules.bag_limit;
  if (!limit) return null;
  const bags = view.bags[side];
  return bags >= limit - 2 ? `⚠ ${bags} of ${limit} bags` : null;
}

export function mySideOf(room, view) {
  if (room.you === null || room.you === undefined) return null;
  return view.mode === "partnership" ? room.you % 2 : room.you;
}

export function scoreboard(room, view) {
  const sides = view.scores.map((_, i) => i);
  const mySide = mySideOf(room, view);
  const leader = Math.max(...view.scores);
  const leaders = sides.filter((side) => view.scores[side] === leader);
  const target = view.rules.target;
  return h("section", { class: "scoreboard card-panel", "aria-labelledby": "score-title" },
    h("div", { class: "panel-head" },
      h("h2", { id: "score-title", class: "panel-title" }, "Score"),
      h("span", { class: "muted small" }, `Hand ${view.hand_number} · to ${target}`)),
    h("table", {},
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, view.mode === "partnership" ? "Team" : "Player"),
        h("th", { scope: "col" }, "Bid"),
        h("th", { scope: "col" }, "Won"),
        h("th", { scope: "col", class: "num" }, "Score"),
        h("th", { scope: "col", class: "num" }, "Bags"))),
      h("tbody", {}, sides.map((side) => {
        const seats = sideSeats(view, side);
        const won = seats.reduce((n, s) => n + view.tricks_won[s], 0);
        const over = view.phase === "over" && view.winner !== null && view.winner !== undefined;
        const leading = over ? view.winner === side : leaders.length === 1 && leaders[0] === side && leader > 0;
        const warn = bagWarning(view, side);
        return h("tr", { class: [side === mySide ? "mine" : null, leading ? "leading" : null] },
          h("th", { scope: "row", class: "side-names" },
            seats.map((seat, i) => h("span", {}, who(room, seat), i < seats.length - 1 ? " &" : "")),
            side === mySide && view.mode === "partnership" ? h("span", { class: "tag you-tag" }, "Your team") : null,
            leading ? h("span", { class: "tag lead-tag" }, over ? "Winner" : "Leading") : null),
          h("td", {}, sideBid(view, seats)),
          h("td", {}, String(won)),
          h("td", { class: "num score" }, String(view.scores[side])),
          h("td", { class: ["num", warn ? "bag-warn-cell" : null] }, `${view.bags[side]}${view.rules.bag_limit ? `/${view.rules.bag_limit}` : ""}`, warn ? h("span", { class: "sr-only" }, " near the bag penalty") : null));
      }))),
    h("div", { class: "target-bars" },
      h("p", { class: "bars-title small muted", id: "bars-title" }, `Progress to the target (${target})`),
      h("ul", { "aria-labelledby": "bars-title" },
        sides.map((side) => {
          const pct = Math.max(0, Math.min(100, (view.scores[side] / target) * 100));
          const name = view.mode === "partnership"
            ? sideSeats(view, side).map((seat) => who(room, seat)).join(" & ")
            : who(room, side);
          return h("li", { class: "bar-row" },
            h("span", { class: "bar-label" }, h("i", { class: `swatch side-${side}`, "aria-hidden": "true" }), `${name}: ${view.scores[side]} of ${target}`),
            h("span", { class: "track", "aria-hidden": "true" },
              h("span", { class: `bar side-${side}`, style: `width:${pct}%` }),
              h("span", { class: "target-mark", title: `Target ${target}` })));
        }))));
}
