// The table during a game: seats, the trick, the bidding panel, your hand, the scoreboard.

import { h } from "../dom.js";
import { bidText, cardName, placeOf, SEAT_NAMES } from "../cards.js";
import { seatName, who, sideName, hintText } from "../state.js";
import { cardButton, cardFace, cardBack, countdown } from "./common.js";
import { chatPanel } from "./chat.js";
import { scoreboard } from "./score.js";

function legalSet(view) {
  const plays = new Set();
  const bids = [];
  let look = false;
  for (const action of view.legal || []) {
    if (action.type === "play") plays.add(action.card);
    else if (action.type === "bid") bids.push(action.bid);
    else if (action.type === "look") look = true;
  }
  return { plays, bids, look };
}

function seatPlate(state, seat, me) {
  const { room, view, clock } = state;
  const info = room.seats[seat];
  const place = placeOf(seat, me);
  const turn = view.to_act === seat && view.phase !== "over";
  const bid = view.bids[seat];
  const tags = [];
  if (view.dealer === seat) tags.push(h("span", { class: "tag dealer", title: "Dealer" }, "Dealer"));
  if (info.kind === "bot") tags.push(h("span", { class: "tag bot" }, "Bot"));
  if (info.kind === "human" && info.away) tags.push(h("span", { class: "tag away" }, "Away"));
  else if (info.kind === "human" && !info.connected) tags.push(h("span", { class: "tag offline" }, "Offline"));
  if (info.timed_out) tags.push(h("span", { class: "tag away" }, "Timed out"));
  if (view.mode === "partnership" && me !== null && seat === (me + 2) % 4) tags.push(h("span", { class: "tag partner" }, "Partner"));
  const label = `${seatName(room, seat)}, ${SEAT_NAMES[seat]}${room.you === seat ? " (you)" : ""}`;
  return h("div", { class: ["seat-plate", `place-${place}`, turn ? "turn" : null, room.you === seat ? "mine" : null], "aria-label": label, role: "group" },
    h("div", { class: "plate-name" },
      h("span", { class: "name" }, seatName(room, seat)),
      room.you === seat ? h("span", { class: "you" }, " (you)") : null),
    h("div", { class: "tags" }, tags),
    h("div", { class: "plate-stats" },
      h("span", { class: "stat" }, h("span", { class: "k" }, "Bid "), h("b", {}, bid === null ? "–" : bidText(bid))),
      h("span", { class: "stat" }, h("span", { class: "k" }, "Won "), h("b", {}, String(view.tricks_won[seat]))),
      room.you === seat ? null : h("span", { class: "stat cards-left", "aria-label": `${view.hand_sizes[seat]} cards` },
        h("span", { class: "mini-back", "aria-hidden": "true" }), h("b", {}, String(view.hand_sizes[seat])))),
    turn ? h("div", { class: "turn-flag" },
      h("span", {}, room.you === seat ? "Your turn" : (view.phase === "bidding" ? "Bidding…" : "Thinking…")),
      clock && clock.turn_deadline ? countdown(clock.turn_deadline, "Time left for this turn") : null) : null);
}

function trickArea(state, me) {
  const { room, view } = state;
  const current = view.current_trick && view.current_trick.cards.length ? view.current_trick : null;
  const shown = current || state.recentTrick;
  if (view.phase === "bidding") {
    const pending = view.to_act;
    return h("div", { class: "trick-area bidding" },
      h("p", { class: "center-note" }, `Hand ${view.hand_number} · bidding`),
      pending !== null ? h("p", { class: "center-sub" }, room.you === pending ? "Your bid" : `${seatName(room, pending)} is bidding`) : null);
  }
  if (!shown) {
    return h("div", { class: "trick-area" }, h("p", { class: "center-sub" }, view.phase === "playing" ? `${who(room, view.to_act)} ${room.you === view.to_act ? "lead" : "leads"}` : ""));
  }
  const done = !current && shown.winner !== undefined;
  const winnerPlace = done ? placeOf(shown.winner, me) : null;
  return h("div", { class: ["trick-area", done ? `done to-${winnerPlace}` : null] },
    h("ul", { class: "trick", "aria-label": done ? `Last trick, won by ${who(room, shown.winner)}` : "Current trick" },
      shown.cards.map(({ seat, card }) => {
        const key = `${view.hand_number}-${card}`;
        const fresh = !state.seenTrickCards || !state.seenTrickCards.has(key);
        return h("li", { class: ["played", `from-${placeOf(seat, me)}`, fresh ? "enter" : null, done && seat === shown.winner ? "winner" : null], "data-seen": key },
          cardFace(card),
          h("span", { class: "sr-only" }, ` played by ${who(room, seat)}`));
      })),
  );
}

function biddingPanel(state, legal) {
  const { room, view } = state;
  const me = room.you;
  if (me === null || view.phase !== "bidding") return null;
  const myTurn = view.to_act === me;
  const hinted = state.hint && state.hint.type === "bid" ? state.hint.bid : undefined;
  if (view.blind_nil_open) {
    const blind = legal.bids.includes("blind nil");
    return h("section", { class: "bid-panel blind", "aria-labelledby": "bid-title" },
      h("h2", { id: "bid-title" }, myTurn ? "Blind nil?" : "Your cards are face down"),
      h("p", {}, myTurn
        ? `Bid blind nil before you look: win no trick at all for ${view.rules.blind_nil_value} points (or lose as much).`
        : "You may bid blind nil when your turn comes, or look at your cards now."),
      h("div", { class: "bid-buttons", "data-group": "bids" },
        blind ? h("button", { type: "button", class: ["btn", "bid", "danger", hinted === "blind nil" ? "hinted" : null], "data-action": "bid", "data-bid": "blind nil", "data-key": "bid-blind", "aria-label": "Blind nil" }, "Blind nil") : null,
        h("button", { type: "button", class: "btn primary", "data-action": "look", "data-key": "look" }, "Show my cards"),
        myTurn ? h("button", { type: "button", class: "btn ghost hint-bid", "data-action": "hint", "data-key": "hint", "aria-label": "Hint" }, "Hint") : null));
  }
  if (!myTurn) return null;
  return h("section", { class: "bid-panel", "aria-labelledby": "bid-title" },
    h("h2", { id: "bid-title" }, "Your bid"),
    h("p", { class: "muted small" }, "How many tricks will you win?"),
    h("div", { class: "bid-buttons", "data-group": "bids" },
      legal.bids.map((bid) => {
        const nil = bid === "nil";
        const label = nil ? "Nil" : `Bid ${bid}`;
        return h("button", {
          type: "button",
          class: ["btn", "bid", nil ? "nil" : null, hinted === bid ? "hinted" : null],
          "data-action": "bid", "data-bid": String(bid), "data-key": `bid-${bid}`, "aria-label": label,
        }, nil ? "Nil" : String(bid));
      }),
      h("button", { type: "button", class: "btn ghost hint-bid", "data-action": "hint", "data-key": "hint", "aria-label": "Hint" }, "Hint")));
}

function statusLine(state, legal) {
  const { room, view } = state;
  const me = room.you;
  let text;
  if (view.phase === "over") text = "Game over";
  else if (me === null) text = `Watching · ${seatName(room, view.to_act)} to ${view.phase === "bidding" ? "bid" : "play"}`;
  else if (view.to_act === me && view.phase === "playing") text = "Your turn: play a highlighted card";
  else if (view.to_act === me) text = "Your turn to bid";
  else text = `Waiting for ${seatName(room, view.to_act)}…`;
  const myTurn = me !== null && view.to_act === me && view.phase !== "over";
  return h("div", { class: ["status-line", myTurn ? "my-turn" : null] },
    h("span", { class: "status-text" }, text),
    myTurn && state.clock && state.clock.turn_deadline ? countdown(state.clock.turn_deadline, "Time left for your turn") : null,
    state.hint ? h("span", { class: "hint-text" }, hintText(state.hint)) : null,
    state.recentTrick && !(view.current_trick && view.current_trick.cards.length)
      ? h("span", { class: "trick-winner" }, `${who(room, state.recentTrick.winner)} ${room.you === state.recentTrick.winner ? "win" : "wins"} the trick`)
      : null,
    view.spades_broken ? h("span", { class: "tag spades-broken" }, "♠ broken") : null);
}

function handRow(state, legal) {
  const { room, view } = state;
  if (room.you === null) return null;
  if (!view.hand) {
    return h("section", { class: "hand hidden-hand", "aria-label": "Your hand (face down)" },
      Array.from({ length: view.hand_sizes[room.you] }, (_, i) => cardBack({ style: `--i:${i}` })));
  }
  const active = view.phase === "playing" && view.to_act === room.you;
  const hinted = state.hint && state.hint.type === "play" ? state.hint.card : null;
  let lastSuit = null;
  return h("section", { class: ["hand", active ? "active" : null], "aria-label": `Your hand, ${view.hand.length} cards`, "data-group": "hand", "data-focus-home": "", tabindex: "-1" },
    view.hand.map((code, index) => {
      const gap = lastSuit !== null && lastSuit !== code[1];
      lastSuit = code[1];
      const button = cardButton(code, { legal: legal.plays.has(code), active, hinted: hinted === code, index });
      if (gap) button.classList.add("suit-start");
      return button;
    }));
}

function sideTools(state, legal) {
  const { room, view } = state;
  const me = room.you;
  const canHint = me !== null && view.to_act === me && view.phase === "playing" && legal.plays.size > 0;
  // While bidding, the hint button sits in the bidding panel instead.
  const bidding = me !== null && view.phase === "bidding";
  const last = view.tricks.length ? view.tricks[view.tricks.length - 1] : null;
  if (view.phase === "bidding") return null; // no trick yet this hand; the hint is in the panel
  return h("div", { class: "tools" },
    me === null || bidding ? null : h("button", { type: "button", class: "btn", "data-action": "hint", "data-key": "hint", "aria-disabled": canHint ? null : "true", "aria-label": "Hint" }, "Hint"),
    h("button", { type: "button", class: "btn", "data-action": "toggle-last", "data-key": "last-trick", "aria-expanded": state.showLastTrick ? "true" : "false", "aria-disabled": last ? null : "true" }, state.showLastTrick ? "Hide last trick" : "Last trick"),
    state.showLastTrick && last
      ? h("div", { class: "last-trick card-panel", role: "region", "aria-label": "Last trick" },
        h("ul", {}, last.cards.map(({ seat, card }) => h("li", { class: seat === last.winner ? "winner" : null },
          cardFace(card, { class: "mini" }),
          h("span", {}, ` ${who(room, seat)}`, seat === last.winner ? " · won" : "")))),
        h("p", { class: "muted small" }, `${who(room, last.winner)} won it with the ${cardName(last.cards.find((c) => c.seat === last.winner).card)}.`))
      : null);
}

// Phones see the scores above the table; the full scoreboard is further down.
function miniScore(room, view) {
  return h("div", { class: "mini-score", "aria-hidden": "true" },
    view.scores.map((score, side) => h("span", {}, `${sideName(room, view, side)} `, h("b", {}, String(score)))),
    h("span", {}, `to ${view.rules.target}`));
}

export function renderTable(state) {
  const { room, view } = state;
  const me = room.you;
  const ref = me ?? 0;
  const legal = legalSet(view);
  const order = [0, 1, 2, 3].map((i) => (ref + i) % 4);
  return h("div", { class: ["table-screen", `mode-${view.mode}`] },
    h("section", { class: "play-area", "aria-label": "Table" },
      miniScore(room, view),
      h("div", { class: "felt" },
        order.map((seat) => seatPlate(state, seat, ref)),
        trickArea(state, ref)),
      statusLine(state, legal),
      biddingPanel(state, legal),
      handRow(state, legal),
      sideTools(state, legal)),
    h("aside", { class: "side", "aria-label": "Scores and chat" },
      scoreboard(room, view),
      chatPanel(state.chat, { canSend: state.link.state === "open" })));
}
