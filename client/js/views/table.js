// The table during a game: seats, the trick, the bidding panel, your hand, the scoreboard.

import { h } from "../dom.js";
import { bidText, cardName, placeOf, SEAT_NAMES, suitOf } from "../cards.js";
import { seatName, who, sideName, hintText, contractOf } from "../state.js";
import { awayNotice, cardButton, cardFace, cardBack, countdown, ratingTag } from "./common.js";
import { chatPanel } from "./chat.js";
import { scoreboard, bagWarning } from "./score.js";
import { quickBar, quickBubble } from "./options.js";
import { getOptions } from "../options.js";
import { FLY_MS, TRICK_HOLD_MS, TRICK_SWEEP_MS, dealAge, dealing, drawnAgo, trickAge, trickGone } from "../motion.js";

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
  const rating = ratingTag(info); // a rated room's players
  if (rating) tags.push(rating);
  if (view.dealer === seat) tags.push(h("span", { class: "tag dealer", title: "Dealer" }, "Dealer"));
  if (info.kind === "bot") tags.push(h("span", { class: "tag bot" }, "Bot"));
  // Away says it all (a bot plays the seat): "Timed out" beside it said the same twice, and
  // was wrong for someone who closed the tab with no turn timer.
  if (info.kind === "human" && info.away) tags.push(h("span", { class: "tag away", title: "A bot plays for them until they are back" }, "Away"));
  else if (info.kind === "human" && !info.connected) tags.push(h("span", { class: "tag offline" }, "Offline"));
  if (info.timed_out && !info.away) tags.push(h("span", { class: "tag away" }, "Timed out"));
  if (view.mode === "partnership" && room.you !== null && seat === (room.you + 2) % 4) tags.push(h("span", { class: "tag partner" }, "Partner"));
  if ((bid === "nil" || bid === "blind nil") && view.phase === "playing") {
    const alive = view.tricks_won[seat] === 0;
    const what = bid === "nil" ? "Nil" : "Blind nil";
    tags.push(h("span", { class: ["tag", alive ? "nil-alive" : "nil-broken"] }, alive ? `${what} alive` : `${what} broken`));
  }
  const label = `${seatName(room, seat)}, ${SEAT_NAMES[seat]}${room.you === seat ? " (you)" : ""}`;
  return h("div", { class: ["seat-plate", `place-${place}`, turn ? "turn" : null, room.you === seat ? "mine" : null], "aria-label": label, role: "group" },
    h("div", { class: "plate-name" },
      h("span", { class: "name", title: seatName(room, seat) }, seatName(room, seat)),
      room.you === seat ? h("span", { class: "you" }, " (you)") : null),
    h("div", { class: "tags" }, tags),
    h("div", { class: "plate-stats" },
      h("span", { class: "stat" }, h("span", { class: "k" }, "Bid "), h("b", {}, bid === null ? "–" : bidText(bid))),
      h("span", { class: "stat" }, h("span", { class: "k" }, "Won "), h("b", {}, String(view.tricks_won[seat]))),
      // Words for a screen reader (an aria-label on a plain span is not read): "13 cards".
      room.you === seat ? null : h("span", { class: "stat cards-left" },
        h("span", { class: "mini-back", "aria-hidden": "true" }), h("b", {}, String(view.hand_sizes[seat])),
        h("span", { class: "sr-only" }, " cards"))),
    turn ? h("div", { class: "turn-flag" },
      h("span", {}, turnWord(room, view, seat)),
      clock && clock.turn_deadline ? countdown(clock.turn_deadline, "Time left for this turn") : null) : null,
    // Quick chat, by the plate of whoever said it (a table option hides it).
    getOptions().hideQuick || !state.quick ? null : quickBubble(state.quick[seat]));
}

// Whose turn a plate's flag says: yours, a person's ("To bid", "To play"), or a bot's at work
// (also the bot playing an away seat).
function turnWord(room, view, seat) {
  const info = room.seats[seat];
  const bidding = view.phase === "bidding";
  if (room.you === seat && !info.away) return "Your turn";
  if (info.kind === "bot" || info.away) return bidding ? "Bidding…" : "Thinking…";
  return bidding ? "To bid" : "To play";
}

function trickArea(state, me) {
  const { room, view } = state;
  const current = view.current_trick && view.current_trick.cards.length ? view.current_trick : null;
  // A won trick stays until the next lead; with motion on it goes to its winner before that.
  const recent = state.recentTrick && !trickGone(state) ? state.recentTrick : null;
  const shown = current || recent;
  if (view.phase === "bidding" && !recent) {
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
  const leader = shown.leader ?? (shown.cards[0] && shown.cards[0].seat);
  const hand = shown.hand ?? view.hand_number;
  // The sweep to the winner starts after the trick's moment whole on the table, counted from
  // when it was won: a drawing in between (a chat line) does not start it again.
  const sweep = done ? `--sweep-delay: ${TRICK_HOLD_MS - trickAge(state)}ms; --sweep-ms: ${TRICK_SWEEP_MS}ms` : null;
  return h("div", { class: ["trick-area", done ? `done to-${winnerPlace}` : null], "data-winner-place": winnerPlace, style: sweep },
    h("ul", { class: "trick", "aria-label": done ? `Last trick, won by ${who(room, shown.winner)}` : "Current trick" },
      shown.cards.map(({ seat, card }) => {
        const key = `${hand}-${card}`;
        const ago = drawnAgo(state, key);
        const fresh = ago < FLY_MS;
        const place = placeOf(seat, me);
        return h("li", {
          class: ["played", `from-${place}`, fresh ? "enter" : null, seat === leader ? "led" : null, done && seat === shown.winner ? "winner" : null],
          "data-seen": key, "data-place": place, "data-card": card, style: fresh && ago > 0 ? `--fly-delay: ${-ago}ms` : null,
        },
          cardFace(card),
          ...trickMarks(seat === leader, done && seat === shown.winner),
          h("span", { class: "sr-only" }, ` played by ${who(room, seat)}${seat === leader ? ", led" : ""}${done && seat === shown.winner ? ", won the trick" : ""}`));
      })),
  );
}

// The leader's and the winner's marks; one card that led and won gets one mark, which sits
// centred on its outer edge (two side by side overlapped on a phone's narrow trick card).
function trickMarks(led, won) {
  // Hidden from screen readers: the card's own words say it ("played by West, led").
  if (led && won) return [h("span", { class: "won-mark led-won", "aria-hidden": "true" }, "Led · Won")];
  return [
    led ? h("span", { class: "led-mark", "aria-hidden": "true" }, "Led") : null,
    won ? h("span", { class: "won-mark", "aria-hidden": "true" }, "Won") : null,
  ];
}

function biddingPanel(state, legal) {
  const { room, view } = state;
  const me = room.you;
  if (me === null || view.phase !== "bidding") return null;
  // While away the bot answers for you: nothing here asks you to.
  if (room.seats[me].away) return null;
  const myTurn = view.to_act === me;
  const hinted = state.hint && state.hint.type === "bid" ? state.hint.bid : undefined;
  if (view.blind_nil_open) {
    const blind = legal.bids.includes("blind nil");
    // Blind bids of a number (the blind_bid_deficit rule): "blind 6" .. "blind 13".
    const blindNumbers = legal.bids.filter((b) => typeof b === "string" && /^blind \d+$/.test(b));
    if (blind && myTurn && state.confirmBlind === view.hand_number) {
      // Worth as much as it costs, and there is no way back: one more click to be sure.
      const value = view.rules.blind_nil_value;
      return h("section", { class: "bid-panel blind", "aria-labelledby": "bid-title" },
        h("h2", { id: "bid-title" }, "Bid blind nil?"),
        h("p", {}, `You win ${value} points if you take no trick this hand, and lose ${value} if you take any.`),
        h("div", { class: "bid-buttons", "data-group": "bids" },
          h("button", { type: "button", class: "btn bid danger", "data-action": "bid", "data-bid": "blind nil", "data-confirmed": "1", "data-key": "bid-blind-yes" }, "Yes, bid blind nil"),
          h("button", { type: "button", class: "btn ghost", "data-action": "cancel-blind", "data-key": "bid-blind-no" }, "Cancel")));
    }
    const onlyNumbers = myTurn && !blind && blindNumbers.length;
    return h("section", { class: "bid-panel blind", "aria-labelledby": "bid-title" },
      h("h2", { id: "bid-title" }, myTurn ? (onlyNumbers ? "Bid blind?" : "Blind nil?") : "Your cards are face down"),
      h("p", {}, myTurn
        ? (onlyNumbers
          ? "Bid 6 or more before you look: the contract counts double, made or set."
          : `Bid blind nil before you look: win no trick at all for ${view.rules.blind_nil_value} points (or lose as much).`)
        : "You may bid blind when your turn comes, or look at your cards now."),
      h("div", { class: "bid-buttons", "data-group": "bids" },
        blind ? h("button", { type: "button", class: ["btn", "bid", "danger", hinted === "blind nil" ? "hinted" : null], "data-action": "bid", "data-bid": "blind nil", "data-key": "bid-blind", "aria-label": "Blind nil" }, "Blind nil") : null,
        myTurn ? blindNumbers.map((bid) => h("button", {
          type: "button", class: ["btn", "bid", "danger", hinted === bid ? "hinted" : null],
          "data-action": "bid", "data-bid": bid, "data-key": `bid-${bid.replace(" ", "-")}`, "aria-label": `Blind ${bid.slice(6)}`,
        }, `Blind ${bid.slice(6)}`)) : null,
        h("button", { type: "button", class: "btn primary", "data-action": "look", "data-key": "look" }, "Show my cards"),
        myTurn ? h("button", { type: "button", class: "btn ghost hint-bid", "data-action": "hint", "data-key": "hint", "aria-label": "Hint" }, "Hint") : null));
  }
  if (!myTurn) return null;
  // Blind nil is in the rules but not open now: say when it is, rather than leave it out.
  const rules = view.rules || {};
  const whyNoBlind = rules.blind_nil && !legal.bids.includes("blind nil")
    ? `Blind nil is open before you look at your cards, to a ${view.mode === "partnership" ? "team" : "player"} behind by ${rules.blind_nil_deficit} points or more.`
    : null;
  return h("section", { class: "bid-panel", "aria-labelledby": "bid-title" },
    h("h2", { id: "bid-title" }, "Your bid"),
    h("p", { class: "muted small" }, "How many tricks will you win?"),
    whyNoBlind ? h("p", { class: "muted small blind-note" }, whyNoBlind) : null,
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

// Who led the trick on the table, or who won the one just finished.
function trickCaption(state) {
  const { room, view } = state;
  const current = view.current_trick && view.current_trick.cards.length ? view.current_trick : null;
  const shown = current || state.recentTrick;
  if (!shown) return null;
  if (!current && shown.winner !== undefined) {
    return h("span", { class: "trick-caption" }, `${who(room, shown.winner)} ${room.you === shown.winner ? "win" : "wins"} the trick`);
  }
  const leader = shown.leader ?? shown.cards[0].seat;
  return h("span", { class: "trick-caption" }, `${who(room, leader)} led`);
}

function statusLine(state, legal) {
  const { room, view } = state;
  const me = room.you;
  let text;
  if (view.phase === "over") text = "Game over";
  else if (me !== null && room.seats[me].away) text = `The bot is playing for you · ${seatName(room, view.to_act)} to ${view.phase === "bidding" ? "bid" : "play"}`;
  else if (me === null) text = `You are watching · ${seatName(room, view.to_act)} to ${view.phase === "bidding" ? "bid" : "play"}`;
  else if (view.to_act === me && offline(state)) text = "Your turn · waiting for the connection";
  else if (view.to_act === me && view.phase === "playing") text = "Your turn: play a highlighted card";
  else if (view.to_act === me) text = "Your turn to bid";
  else text = `Waiting for ${seatName(room, view.to_act)}…`;
  const myTurn = me !== null && view.to_act === me && view.phase !== "over" && !room.seats[me].away;
  return h("div", { class: ["status-line", myTurn ? "my-turn" : null] },
    h("span", { class: "status-text" }, text),
    // The clock next to "Your turn", before any button (which may wrap to a line of its own).
    myTurn && state.clock && state.clock.turn_deadline ? countdown(state.clock.turn_deadline, "Time left for your turn") : null,
    view.phase === "over" && state.overClosed === room.game_id ? h("button", { type: "button", class: "btn small", "data-action": "open-over", "data-key": "open-over" }, "Results") : null,
    state.lastGame ? h("button", { type: "button", class: "btn small", "data-action": "open-last-game", "data-key": "open-last-game", "aria-haspopup": "dialog" }, "Last game's results") : null,
    state.hint ? h("span", { class: "hint-text" }, hintText(state.hint)) : null,
    trickCaption(state),
    view.spades_broken ? h("span", { class: "tag spades-broken" }, "♠ broken") : null);
}

function handRow(state, legal) {
  const { room, view } = state;
  if (room.you === null) return null;
  if (!view.hand) {
    return h("section", { class: "hand hidden-hand", "aria-label": "Your hand (face down)" },
      Array.from({ length: view.hand_sizes[room.you] }, (_, i) => cardBack({ style: `--i:${i}` })));
  }
  // Offline, nothing can be played: no card asks to be.
  const active = view.phase === "playing" && view.to_act === room.you && !room.seats[room.you].away && !offline(state);
  const hinted = state.hint && state.hint.type === "play" ? state.hint.card : null;
  // The hand's one Tab stop: the card last focused, else the hinted card, else the first
  // playable one, else the first.
  const rover = [state.handFocus, hinted, active ? view.hand.find((c) => legal.plays.has(c)) : null, view.hand[0]]
    .find((c) => c && view.hand.includes(c));
  let lastSuit = null;
  const deal = dealing(state, view.hand.length);
  return h("section", {
    class: ["hand", active ? "active" : null, deal ? "deal" : null], "aria-label": `Your hand, ${view.hand.length} cards`, "data-group": "hand",
    "data-focus-home": "", tabindex: "-1", style: `--n:${Math.max(2, view.hand.length)}${deal ? `; --deal-age: ${dealAge(state)}ms` : ""}`,
  },
    view.hand.map((code, index) => {
      const gap = lastSuit !== null && lastSuit !== suitOf(code);
      lastSuit = suitOf(code);
      const button = cardButton(code, { legal: legal.plays.has(code), active, hinted: hinted === code, index, rover: code === rover });
      if (gap) button.classList.add("suit-start");
      return button;
    }));
}

function sideTools(state, legal) {
  const { room, view } = state;
  const me = room.you;
  const canHint = me !== null && view.to_act === me && view.phase === "playing" && legal.plays.size > 0;
  const last = lastOf(view);
  return h("div", { class: "tools" },
    // While bidding, the hint button sits in the bidding panel instead.
    me === null || view.phase !== "playing" ? null : h("button", { type: "button", class: "btn", "data-action": "hint", "data-key": "hint", "aria-disabled": canHint ? null : "true", "aria-label": "Hint" }, "Hint"),
    h("button", { type: "button", class: "btn", "data-action": "toggle-last", "data-key": "last-trick", "aria-expanded": state.showLastTrick ? "true" : "false", "aria-disabled": last ? null : "true" }, state.showLastTrick ? "Hide last trick" : "Last trick"),
    h("button", { type: "button", class: "btn", "data-action": "open-score-sheet", "data-key": "score-sheet", "aria-haspopup": "dialog" }, "Score sheet"),
    h("button", { type: "button", class: "btn", "data-action": "open-rules", "data-key": "rules", "aria-haspopup": "dialog" }, "Rules"),
    h("button", { type: "button", class: "btn", "data-action": "open-options", "data-key": "options", "aria-haspopup": "dialog" }, "Options"),
    // Leaving on purpose asks first (the logo's dialog): the bot plays the seat meanwhile.
    me !== null && view.phase !== "over" ? h("button", { type: "button", class: "btn ghost leave-table", "data-action": "leave-home", "data-key": "leave-table", "aria-haspopup": "dialog" }, "Leave table") : null,
    trickLog(room, view));
}

// The latest finished trick, kept across the deal: "Last trick" stays until the next one starts.
function lastOf(view) {
  return view.last_trick || (view.tricks.length ? view.tricks[view.tricks.length - 1] : null);
}

export function lastTrickPanel(room, last) {
  const winnerCard = last.cards.find((c) => c.seat === last.winner);
  const leader = last.leader ?? (last.cards[0] && last.cards[0].seat);
  return h("div", { class: "last-trick card-panel", role: "region", "aria-label": "Last trick" },
    h("ul", {}, last.cards.map(({ seat, card }) => h("li", { class: seat === last.winner ? "winner" : null },
      cardFace(card, { class: "mini" }),
      h("span", {}, ` ${who(room, seat)}`, seat === leader ? " · led" : "", seat === last.winner ? " · won" : "")))),
    h("p", { class: "muted small" }, `${who(room, last.winner)} won it with the ${winnerCard ? cardName(winnerCard.card) : "?"}.`));
}

// Who won each trick of this hand, in order.
function trickLog(room, view) {
  if (view.phase !== "playing" || !view.tricks.length) return null;
  return h("ol", { class: "trick-log", "aria-label": "Tricks won this hand" },
    view.tricks.map((trick, i) => h("li", { class: room.you === trick.winner ? "mine" : null },
      h("span", { class: "n" }, `${i + 1}`), " ", who(room, trick.winner))));
}

function sideSeatsOf(view, side) {
  return view.mode === "partnership" ? [side, side + 2] : [side];
}

// Each side's contract on the table: "3 of 5", nil markers, a bag warning near the limit.
function contracts(room, view) {
  if (view.phase === "over") return null;
  const sides = view.scores.map((_, i) => i);
  return h("ul", { class: "contracts", "aria-label": "Contracts this hand" },
    sides.map((side) => {
      const c = contractOf(view, side);
      const warn = bagWarning(view, side);
      let text;
      let name = sideName(room, view, side);
      const nils = sideSeatsOf(view, side).filter((seat) => view.bids[seat] === "nil" || view.bids[seat] === "blind nil");
      const seats = sideSeatsOf(view, side);
      // Your own seat (every player for themself) reads as a sentence: "Your turn to bid",
      // not "You bidding…"; other seats keep "North bidding…" / "North yet to bid".
      const yoursAlone = view.mode !== "partnership" && room.you !== null && room.you === side;
      if (!c.complete && yoursAlone) {
        name = "Your";
        if (view.to_act !== side) text = "bid still to come";
        else text = room.seats[side].away ? "turn: the bot bids for you" : "turn to bid";
      } else if (!c.complete) text = seats.includes(view.to_act) || seats.some((seat) => view.bids[seat] !== null) ? "bidding…" : "yet to bid";
      else if (c.bid === 0 && nils.length) text = `${nils.map((seat) => bidText(view.bids[seat])).join(" + ")}, ${nils.every((seat) => view.tricks_won[seat] === 0) ? "alive" : "broken"}`;
      else if (c.bid === 0) text = `no contract · ${c.won} won`;
      else text = `${c.won} of ${c.bid}`;
      if (c.complete && c.bid > 0 && nils.length && view.phase === "playing") {
        text += nils.map((seat) => ` · ${who(room, seat)}: ${bidText(view.bids[seat])} ${view.tricks_won[seat] === 0 ? "alive" : "broken"}`).join("");
      }
      const made = c.complete && c.bid > 0 && c.won >= c.bid;
      return h("li", { class: [made ? "made" : null, room.you !== null && (view.mode === "partnership" ? room.you % 2 : room.you) === side ? "mine" : null] },
        h("span", { class: "who" }, name), " ",
        h("b", {}, text), made ? h("span", { class: "ok" }, " made") : null,
        warn ? h("span", { class: "tag bag-warn" }, warn) : null);
    }));
}

// Phones see the scores above the table; the full scoreboard is further down.
function miniScore(room, view) {
  return h("div", { class: "mini-score", "aria-hidden": "true" },
    view.scores.map((score, side) => h("span", {}, `${sideName(room, view, side)} `, h("b", {}, String(score)))),
    h("span", {}, `to ${view.rules.target}`));
}

export function renderTable(state, { strip = null, held = false } = {}) {
  const { room, view } = state;
  const me = room.you;
  const ref = me ?? 0;
  const legal = legalSet(view);
  const order = [0, 1, 2, 3].map((i) => (ref + i) % 4);
  const screen = h("div", { class: ["table-screen", `mode-${view.mode}`, offline(state) ? "offline" : null] },
    h("section", { class: "play-area", "aria-label": "Table" },
      // The page's heading for screen readers (the room's code is in the top bar).
      h("h1", { class: "sr-only" }, `Room ${room.code}: the table`),
      strip,
      awayNotice(state),
      miniScore(room, view),
      contracts(room, view),
      h("div", { class: "felt" },
        order.map((seat) => seatPlate(state, seat, ref)),
        trickArea(state, ref)),
      statusLine(state, legal),
      held ? null : biddingPanel(state, legal),
      // Why the card just clicked cannot be played (also read out, room/refusal.js).
      state.refusal ? h("p", { class: "play-refusal", "data-key": "refusal" }, state.refusal.text) : null,
      handRow(state, legal),
      sideTools(state, legal)),
    h("aside", { class: "side", "aria-label": "Scores and chat" },
      // At the top of the side column: in view on a desktop, whatever the table's height;
      // just under the table's buttons on a phone.
      state.showLastTrick && lastOf(view) ? lastTrickPanel(room, lastOf(view)) : null,
      scoreboard(room, view),
      chatPanel(state.chat, { canSend: !offline(state), you: me, reporting: state.reporting, hidden: state.hidden, extra: me !== null && !getOptions().hideQuick ? quickBar() : null })));
  // Offline, a bid could not be sent: the buttons say so rather than fail on a click.
  if (offline(state)) {
    for (const button of screen.querySelectorAll(".bid-panel [data-action='bid'], .bid-panel [data-action='look']")) button.setAttribute("aria-disabled", "true");
  }
  return screen;
}

// The link to the server is down (reconnecting) or closed: moves wait for it.
function offline(state) {
  return !!state.link && state.link.state !== "open";
}
