// The game review: a finished game replayed from its record (GET /api/games/{id}/record),
// one bid or card at a time, all four hands face up, with the score sheet beside it.
// The page is /#review/{game id}[/{step}]; arrow keys step, Page Up/Down jump a hand.

import { announce } from "./announce.js";
import { playerHeaders } from "./api.js";
import { bidText, cardName, parseCard, placeOf, rankValue, SEAT_NAMES, sortHand, suitOf } from "./cards.js";
import { focusWideTables, h, mount } from "./dom.js";
import { scoreTable } from "./views/sheets.js";


function trickWinner(cards) {
  const led = suitOf(cards[0].card);
  let best = cards[0];
  for (const played of cards.slice(1)) {
    const c = played.card;
    const b = best.card;
    if (suitOf(c) === suitOf(b)) {
      if (rankValue(c) > rankValue(b)) best = played;
    } else if (suitOf(c) === "S") {
      best = played;
    }
  }
  return { winner: best.seat, led };
}

function normBid(bid) {
  if (typeof bid === "string") {
    const text = bid.trim().toLowerCase().replace("_", " ");
    if (text === "blind nil" || text === "nil") return text;
    const blind = /^blind (\d+)$/.exec(text); // a blind bid of a number (blind_bid_deficit)
    if (blind) return Number(blind[1]);
  }
  return bid;
}

/** Each seat's name: the player's, where the record names the room's seats, else the seat's. */
export function seatNames(record) {
  return SEAT_NAMES.map((where, seat) => {
    const player = record.players && record.players[seat];
    return player && player.name ? player.name : where;
  });
}

/** Every position of the game, in order: each hand's deal, then each bid and card. */
export function buildSteps(record) {
  const names = seatNames(record);
  const steps = [];
  const deals = record.dealt || [];
  const actions = (record.actions || []).filter((a) => a.action && (a.action.type === "bid" || a.action.type === "play"));
  let at = 0;
  deals.forEach((deal) => {
    const hands = deal.hands.map((cards) => sortHand(cards));
    let snap = {
      hand: deal.hand, dealer: deal.dealer, hands, bids: [null, null, null, null], trick: [],
      lastTrick: null, tricksWon: [0, 0, 0, 0], plays: 0, text: `Hand ${deal.hand} dealt; ${names[(deal.dealer + 1) % 4]} bids first`, actor: null,
    };
    steps.push(snap);
    while (at < actions.length && snap.plays < 52) {
      const { seat, action } = actions[at];
      at += 1;
      const next = { ...snap, bids: [...snap.bids], hands: [...snap.hands], tricksWon: [...snap.tricksWon], trick: [...snap.trick], actor: seat };
      if (action.type === "bid") {
        next.bids[seat] = normBid(action.bid);
        next.text = `${names[seat]} bids ${bidText(next.bids[seat])}`;
      } else {
        if (next.trick.length === 4) next.trick = [];
        next.hands[seat] = next.hands[seat].filter((c) => c !== action.card);
        next.trick.push({ seat, card: action.card });
        next.plays += 1;
        next.text = `${names[seat]} plays the ${cardName(action.card)}`;
        if (next.trick.length === 4) {
          const { winner } = trickWinner(next.trick);
          next.tricksWon[winner] += 1;
          next.lastTrick = { cards: next.trick, winner };
          next.text += `; ${names[winner]} wins the trick`;
          if (next.plays === 52) next.text += `. Hand ${deal.hand} is over`;
        }
      }
      steps.push(next);
      snap = next;
    }
  });
  return steps;
}

function seatPanel(snap, seat, names) {
  const place = placeOf(seat, 0);
  const bid = snap.bids[seat];
  const played = snap.trick.find((p) => p.seat === seat);
  return h("section", { class: ["review-seat", `place-${place}`, snap.actor === seat ? "acted" : null], "aria-label": `${names[seat]}'s hand` },
    h("h2", { class: "review-seat-name" }, names[seat],
      names[seat] !== SEAT_NAMES[seat] ? h("span", { class: "muted small" }, SEAT_NAMES[seat]) : null,
      snap.dealer === seat ? h("span", { class: "tag dealer" }, "Dealer") : null),
    h("p", { class: "small" }, `Bid ${bid === null ? "–" : bidText(bid)} · Won ${snap.tricksWon[seat]}`, played ? ` · played ${parseCard(played.card).label}${parseCard(played.card).symbol}` : ""),
    h("ul", { class: "review-cards", "aria-label": `${snap.hands[seat].length} cards` },
      snap.hands[seat].map((code) => {
        const card = parseCard(code);
        return h("li", { class: ["mini-card", card.red ? "red" : null] },
          h("span", { "aria-hidden": "true" }, `${card.label}${card.symbol}`),
          h("span", { class: "sr-only" }, card.name));
      })));
}

function trickPanel(snap, names) {
  const complete = snap.trick.length === 4;
  const winner = complete ? trickWinner(snap.trick).winner : null;
  return h("section", { class: "review-trick", "aria-label": "Trick" },
    snap.trick.length
      ? h("ol", {}, snap.trick.map(({ seat, card }, i) => {
        const c = parseCard(card);
        return h("li", { class: seat === winner ? "winner" : null },
          h("span", { class: ["mini-card", c.red ? "red" : null] }, h("span", { "aria-hidden": "true" }, `${c.label}${c.symbol}`), h("span", { class: "sr-only" }, c.name)),
          ` ${names[seat]}`, i === 0 ? " · led" : "", seat === winner ? " · won" : "");
      }))
      : h("p", { class: "muted small" }, snap.plays === 0 ? "Bidding" : "No card on the table"));
}

function reviewView(model) {
  const { gameId, record, steps, index } = model;
  const snap = steps[index];
  const sides = record.rules.mode === "partnership" ? 2 : 4;
  const finishedHands = snap.plays === 52 ? snap.hand : snap.hand - 1;
  const history = (record.history || []).filter((entry) => entry.hand <= finishedHands);
  const view = { mode: record.rules.mode, rules: record.rules, scores: Array(sides).fill(0) };
  const hands = (record.dealt || []).length;
  const names = seatNames(record);
  const room = { you: null, seats: names.map((name) => ({ kind: "human", name })) };
  const code = record.room || new URLSearchParams(location.search).get("room");
  return h("div", { class: "review" },
    h("section", { class: "card-panel review-main", "aria-labelledby": "review-title" },
      h("div", { class: "panel-head" },
        h("h1", { id: "review-title" }, "Game review", code ? h("span", { class: "muted small" }, ` · room ${code}`) : null),
        h("span", { class: "muted small" }, `${record.rules.mode === "partnership" ? "Partners" : "Every player for themself"} · to ${record.rules.target}`)),
      h("div", { class: "review-controls", role: "group", "aria-label": "Step through the game" },
        h("button", { type: "button", class: "btn small", "data-action": "review-hand", "data-dir": "-1", "data-key": "prev-hand", "aria-disabled": snap.hand > 1 || index > 0 ? null : "true" }, "Previous hand"),
        h("button", { type: "button", class: "btn", "data-action": "review-step", "data-dir": "-1", "data-key": "prev-step", "aria-disabled": index > 0 ? null : "true", "aria-keyshortcuts": "ArrowLeft" }, "◀ Back"),
        h("button", { type: "button", class: "btn primary", "data-action": "review-step", "data-dir": "1", "data-key": "next-step", "aria-disabled": index < steps.length - 1 ? null : "true", "aria-keyshortcuts": "ArrowRight" }, "Forward ▶"),
        h("button", { type: "button", class: "btn small", "data-action": "review-hand", "data-dir": "1", "data-key": "next-hand", "aria-disabled": snap.hand < hands ? null : "true" }, "Next hand")),
      h("p", { class: "review-where", "aria-live": "polite" },
        h("strong", {}, `Hand ${snap.hand} of ${hands} · step ${index + 1} of ${steps.length}: `), snap.text),
      h("div", { class: "review-table" },
        [2, 1, 3, 0].map((seat) => seatPanel(snap, seat, names)),
        trickPanel(snap, names)),
      h("p", { class: "muted small" }, "Keys: ← and → step, Page Up and Page Down jump a hand. ",
        h("a", { href: `/${location.search}#review/${gameId}/${index}` }, "Link to this step"), " · ",
        code ? [h("a", { href: `/r/${encodeURIComponent(code)}`, "data-key": "back-to-room" }, `Back to room ${code}`), " · "] : null,
        h("a", { href: "/" }, "Home"))),
    h("aside", { class: "card-panel review-side", "aria-labelledby": "review-sheet-title" },
      h("h2", { id: "review-sheet-title" }, "Score sheet"),
      scoreTable(room, view, history)));
}

export function startReview(main, gameId, startStep) {
  const model = { gameId, record: null, steps: [], index: 0 };
  document.title = `Spades · Game ${gameId} review`;

  const render = () => {
    mount(main, reviewView(model));
    focusWideTables(main);
  };
  window.addEventListener("resize", () => focusWideTables(main));

  const go = (index) => {
    model.index = Math.max(0, Math.min(model.steps.length - 1, index));
    history.replaceState(null, "", `/${location.search}#review/${gameId}/${model.index}`);
    render();
    announce(model.steps[model.index].text);
  };
  const jumpHand = (dir) => {
    const snap = model.steps[model.index];
    const target = dir > 0 ? snap.hand + 1 : (model.steps[model.index].plays === 0 && !snap.bids.some((b) => b !== null) ? snap.hand - 1 : snap.hand);
    const found = model.steps.findIndex((s) => s.hand === target);
    if (found >= 0) go(found);
  };

  main.addEventListener("click", (event) => {
    const el = event.target.closest("[data-action^='review-']");
    if (!el || el.getAttribute("aria-disabled") === "true") return;
    if (el.dataset.action === "review-step") go(model.index + Number(el.dataset.dir));
    else jumpHand(Number(el.dataset.dir));
  });
  document.addEventListener("keydown", (event) => {
    if (!model.steps.length || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest && event.target.closest("input, select, textarea")) return;
    const moves = { ArrowRight: () => go(model.index + 1), ArrowLeft: () => go(model.index - 1), PageDown: () => jumpHand(1), PageUp: () => jumpHand(-1), Home: () => go(0), End: () => go(model.steps.length - 1) };
    if (moves[event.key]) {
      event.preventDefault();
      moves[event.key]();
    }
  });

  mount(main, h("section", { class: "card-panel center-box" }, h("p", { class: "muted" }, "Loading the game…")));
  // Named by this browser's player: a private room's game shows its names to those who sat in it.
  fetch(`/api/games/${encodeURIComponent(gameId)}/record`, { headers: playerHeaders() }).then(async (response) => {
    const data = await response.json().catch(() => null);
    if (!response.ok || !data || !data.dealt) {
      const why = response.status === 409 ? "This game is still being played; its review opens once it is over."
        : response.status === 404 ? `There is no game ${gameId}.` : "This game cannot be shown.";
      mount(main, h("section", { class: "card-panel center-box" }, h("h1", {}, "No review"), h("p", {}, why), h("a", { class: "btn primary", href: "/" }, "Back to home")));
      return;
    }
    model.record = data;
    model.steps = buildSteps(data);
    model.index = Math.max(0, Math.min(model.steps.length - 1, startStep || 0));
    render();
  });
}
