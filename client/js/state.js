// The room page's state: what the server last said, plus the little the client adds
// (chat log, hint, the result sheet to show, the trick that just finished).
// `reduce` takes a server message and returns the next state and the events worth announcing.

import { cardName, bidText, SEAT_NAMES } from "./cards.js";
import { getSeenHands, setSeenHands } from "./storage.js";

export function initialState(code) {
  return {
    code,
    link: { state: "connecting", attempt: 0 },
    seq: -1,
    room: null,
    view: null,
    clock: null,
    clockOffset: 0,
    chat: [],
    hint: null,
    sheet: null,
    scoreSheet: false,
    recentTrick: null,
    recentTrickAt: null,
    showLastTrick: false,
    toast: null,
    notice: null,
    confirmBlind: null, // the hand number whose blind nil awaits "Yes, bid blind nil"
    lastGame: null, // {room, view}: the game that ended when a new one started (see applyStateMessage)
    showLastGame: false,
    overClosed: null, // the game whose game-over screen was closed (the table and chat show)
    closed: null,
  };
}

export function seatName(room, seat) {
  if (!room || seat === null || seat === undefined) return "";
  const info = room.seats[seat];
  if (info && info.name) return info.name;
  if (info && info.kind === "bot") return `Bot ${SEAT_NAMES[seat]}`;
  return SEAT_NAMES[seat];
}

/** "You" for the viewer's own seat, the seat's name otherwise. */
export function who(room, seat) {
  return room && room.you === seat ? "You" : seatName(room, seat);
}

/** The viewer's seat: their own, or South for a spectator. */
export function mySeat(state) {
  return state.room && state.room.you !== null && state.room.you !== undefined ? state.room.you : null;
}

export function sideOf(view, seat) {
  return view.mode === "partnership" ? seat % 2 : seat;
}

export function sideName(room, view, side) {
  if (view.mode !== "partnership") return who(room, side);
  return `${who(room, side)} & ${who(room, side + 2)}`;
}

function turnText(room, view) {
  if (!view || view.to_act === null || view.to_act === undefined || view.phase === "over") return null;
  const verb = view.phase === "bidding" ? "bid" : "play";
  if (room.you === view.to_act) return `Your turn to ${verb}`;
  return `${seatName(room, view.to_act)} to ${verb}`;
}

// A state leaves out what this connection already holds: `room` when it did not change,
// and bulky view keys (rules, tricks, last_trick, commitment, history) whose values did not
// change. What is missing keeps the value of the state before (docs/protocol.md).
export function mergeState(prev, msg) {
  const room = "room" in msg ? msg.room : prev.room;
  const view = msg.view && prev.view ? { ...prev.view, ...msg.view } : msg.view;
  return { ...msg, room, view };
}

function applyStateMessage(prev, message) {
  const msg = mergeState(prev, message);
  const events = [];
  const next = { ...prev, seq: msg.seq, room: msg.room, view: msg.view, clock: msg.clock || null, closed: null };
  if (msg.clock && typeof msg.clock.now === "number") next.clockOffset = msg.clock.now - Date.now();

  const pv = prev.view;
  const nv = msg.view;
  const room = msg.room;
  if (!nv) {
    next.recentTrick = null;
    next.sheet = null;
    return { state: next, events };
  }
  const sameGame = prev.room && prev.room.game_id === room.game_id;
  const sameHand = sameGame && pv && pv.hand_number === nv.hand_number;

  // A trick that just completed stays on the table until the next card is played.
  if (sameHand && nv.tricks.length > pv.tricks.length) {
    const trick = nv.tricks[nv.tricks.length - 1];
    next.recentTrick = trick;
    next.recentTrickAt = Date.now(); // when it was won: its motion counts from then (motion.js)
    const last = trick.cards[trick.cards.length - 1];
    if (last && last.seat !== room.you) events.push(`${seatName(room, last.seat)} plays ${cardName(last.card)}`);
    events.push(`${who(room, trick.winner)} ${room.you === trick.winner ? "win" : "wins"} the trick`);
  } else if (sameGame && pv && nv.history.length > pv.history.length && nv.last_trick) {
    // The hand just ended: its 13th trick stays on the table for a moment (room.js holds
    // the result sheet back meanwhile), and "Last trick" keeps it until the next trick starts.
    const trick = nv.last_trick;
    next.recentTrick = trick;
    next.recentTrickAt = Date.now();
    const last = trick.cards[trick.cards.length - 1];
    if (last && last.seat !== room.you) events.push(`${seatName(room, last.seat)} plays ${cardName(last.card)}`);
    events.push(`${who(room, trick.winner)} ${room.you === trick.winner ? "win" : "wins"} the last trick`);
  } else if (!sameHand || (nv.current_trick && nv.current_trick.cards.length > 0)) {
    next.recentTrick = null;
  }

  // Cards played by others, bids made: short announcements (the hand's last bid too, which
  // comes with the phase already "playing").
  if (sameHand && (nv.phase === "bidding" || pv.phase === "bidding")) {
    nv.bids.forEach((bid, seat) => {
      if (bid !== null && pv.bids[seat] === null && seat !== room.you) {
        events.push(`${seatName(room, seat)} bids ${bidText(bid)}`);
      }
    });
  }
  if (sameHand && nv.current_trick && (!pv.current_trick || nv.current_trick.cards.length > pv.current_trick.cards.length)) {
    const played = nv.current_trick.cards[nv.current_trick.cards.length - 1];
    if (played && played.seat !== room.you) events.push(`${seatName(room, played.seat)} plays ${cardName(played.card)}`);
  }

  // A finished hand opens its result sheet, once per hand (and not again after a reload).
  const seen = getSeenHands(prev.code, room.game_id);
  const known = sameGame && pv ? pv.history.length : seen ?? nv.history.length;
  if (nv.history.length > known) {
    next.sheet = { entry: nv.history[nv.history.length - 1], index: nv.history.length - 1, collapsed: false };
    const entry = nv.history[nv.history.length - 1];
    events.push(`Hand ${entry.hand} is over`);
  } else if (!sameGame) {
    next.sheet = null;
  }
  setSeenHands(prev.code, room.game_id, nv.history.length);

  if (nv.phase === "over" && (!pv || pv.phase !== "over" || !sameGame)) {
    events.push(`Game over: ${sideName(room, nv, nv.winner)} ${nv.mode === "partnership" || room.you === nv.winner ? "win" : "wins"}`);
  }

  // Your turn timer ran out and the bot moved for you: say so, and what it did.
  const me = room.you;
  if (me !== null && me !== undefined && prev.room && prev.room.seats[me] && room.seats[me]) {
    const was = prev.room.seats[me];
    const now = room.seats[me];
    const move = now.timed_out && sameHand ? movedFor(pv, nv, me) : null;
    if (now.timed_out && (!was.timed_out || (!was.away && move))) {
      const text = `Time's up: the bot ${move || "moved"} for you${now.away ? ". It plays your seat until you are back" : ""}.`;
      next.notice = { text, at: Date.now() };
      events.push(text);
    }
  }

  const turn = turnText(room, nv);
  const prevTurn = sameHand ? turnText(prev.room, pv) : null;
  if (turn && (turn !== prevTurn || nv.phase !== pv.phase)) events.push(turn);

  // A hint belongs to one decision: drop it once the turn moves on.
  if (prev.hint && (!sameHand || nv.to_act !== pv.to_act || nv.phase !== pv.phase || nv.tricks.length !== pv.tricks.length)) {
    next.hint = null;
  }
  if (!sameGame) {
    next.showLastTrick = false;
    next.scoreSheet = false;
    next.showLastGame = false;
    // Someone clicked "Play again": a new deal, for everyone at once. The game that just
    // ended stays at hand ("Last game's results") through the first hand of the new one.
    next.lastGame = prev.room && pv && pv.phase === "over" ? { room: prev.room, view: pv } : null;
    if (next.lastGame) events.push("A new game has started");
  } else if (prev.lastGame && nv.hand_number > 1) {
    next.lastGame = null;
    next.showLastGame = false;
  }
  return { state: next, events };
}

// What the seat did between two views of one hand ("bid 3", "played the Two of Clubs"), or null.
function movedFor(pv, nv, seat) {
  if (!pv || !nv) return null;
  if (nv.bids[seat] !== null && nv.bids[seat] !== undefined && (pv.bids[seat] === null || pv.bids[seat] === undefined)) {
    return `bid ${bidText(nv.bids[seat])}`;
  }
  const before = new Set();
  for (const trick of [...pv.tricks, pv.current_trick].filter(Boolean)) for (const c of trick.cards) if (c.seat === seat) before.add(c.card);
  for (const trick of [...nv.tricks, nv.current_trick].filter(Boolean)) {
    for (const c of trick.cards) if (c.seat === seat && !before.has(c.card)) return `played the ${cardName(c.card)}`;
  }
  return null;
}

/** Fold one server message into the state. Returns {state, events: [text to announce]}. */
export function reduce(state, msg) {
  switch (msg.type) {
    case "state":
      // Sequence numbers count the actions of one game; an older one of the same game is stale.
      if (typeof msg.seq === "number" && msg.seq < state.seq && state.room && msg.room && state.room.game_id === msg.room.game_id) {
        return { state, events: [] };
      }
      return applyStateMessage(state, msg);
    case "chat":
      return { state: { ...state, chat: addChat(state.chat, msg) }, events: [] };
    case "hint":
      return { state: { ...state, hint: msg.action }, events: [hintText(msg.action)] };
    case "error":
      return { state: { ...state, toast: { text: msg.message || msg.code, at: Date.now(), code: msg.code } }, events: [] };
    default:
      return { state, events: [] };
  }
}

/** The chat log with one message more. The log is kept across reconnects, and the server
 * sends its recent chat again after every hello, each message exactly as it was sent live
 * (its time included): one already held is not added twice, and one missed while the link
 * was down goes in its place by time. */
export function addChat(chat, msg) {
  const entry = { seat: msg.seat, name: msg.name, text: msg.text, at: msg.at };
  const same = (m) => m.at === entry.at && m.seat === entry.seat && m.name === entry.name
    && m.text === entry.text;
  if (chat.some(same)) return chat;
  const next = [...chat, entry];
  let i = next.length - 1;
  while (i > 0 && typeof entry.at === "number" && next[i - 1].at > entry.at) {
    next[i] = next[i - 1];
    i -= 1;
  }
  next[i] = entry;
  return next.slice(-200);
}

export function hintText(action) {
  if (!action) return "No hint";
  if (action.type === "bid") return `Hint: bid ${bidText(action.bid)}`;
  if (action.type === "play") return `Hint: play the ${cardName(action.card)}`;
  if (action.type === "look") return "Hint: look at your cards";
  return "Hint";
}

/** True while the viewer's own turn clock runs: nothing may cover the table then. */
export function myClockRuns(state) {
  const { room, view, clock } = state;
  if (!room || !view || room.you === null || room.you === undefined) return false;
  return view.phase !== "over" && view.to_act === room.you && Boolean(clock && clock.turn_deadline);
}

/** The side's contract: tricks bid by its non-nil bidders, tricks won so far by the side. */
export function contractOf(view, side) {
  const seats = view.mode === "partnership" ? [side, side + 2] : [side];
  let bid = 0;
  let won = 0;
  let complete = true;
  for (const seat of seats) {
    const b = view.bids[seat];
    const nil = b === "nil" || b === "blind nil" || b === 0;
    if (b === null || b === undefined) complete = false;
    else if (!nil) bid += b;
    // A nil bidder's tricks help the partner only under nil_tricks_count_for_partner.
    if (!nil || (view.rules && view.rules.nil_tricks_count_for_partner)) won += view.tricks_won[seat];
  }
  return { bid, won, complete };
}

/** Milliseconds left until an epoch-ms deadline on the server's clock, or null; `at` is the
 * local time to count from (the moment the link went down, while the clocks are frozen). */
export function remaining(state, deadline, at = Date.now()) {
  if (!deadline) return null;
  return Math.max(0, deadline - (at + state.clockOffset));
}
