// The scoreboard: each side's bid and tricks this hand, score, bags, and the target.

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

export function scoreboard(room, view) {
  const sides = view.scores.map((_, i) => i);
  const mySide = room.you === null ? null : (view.mode === "partnership" ? room.you % 2 : room.you);
  const leader = Math.max(...view.scores);
  return h("section", { class: "scoreboard card-panel", "aria-labelledby": "score-title" },
    h("div", { class: "panel-head" },
      h("h2", { id: "score-title", class: "panel-title" }, "Score"),
      h("span", { class: "muted small" }, `Hand ${view.hand_number} · to ${view.rules.target}`)),
    h("table", {},
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, view.mode === "partnership" ? "Team" : "Player"),
        h("th", { scope: "col" }, "Bid"),
        h("th", { scope: "col" }, "Won"),
        h("th", { scope: "col" }, "Score"),
        h("th", { scope: "col" }, "Bags"))),
      h("tbody", {}, sides.map((side) => {
        const seats = sideSeats(view, side);
        const won = seats.reduce((n, s) => n + view.tricks_won[s], 0);
        return h("tr", { class: [side === mySide ? "mine" : null, view.scores[side] === leader ? "leading" : null] },
          h("th", { scope: "row", class: "side-names" },
            seats.map((seat, i) => h("span", {}, who(room, seat), i < seats.length - 1 ? " &" : ""))),
          h("td", {}, sideBid(view, seats)),
          h("td", {}, String(won)),
          h("td", { class: "num" }, String(view.scores[side])),
          h("td", { class: "num" }, `${view.bags[side]}${view.rules.bag_limit ? `/${view.rules.bag_limit}` : ""}`));
      }))),
    h("div", { class: "target-bar", "aria-hidden": "true" },
      sides.map((side) => h("span", { class: `bar side-${side}`, style: `width:${Math.max(0, Math.min(100, (view.scores[side] / view.rules.target) * 100))}%` }))));
}
