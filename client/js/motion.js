// The table's motion, aimed at the page as it is drawn: a card played travels from its
// player's plate (yours from where it was in your hand) to its place in the trick, and a won
// trick, after a moment whole on the table, goes to the winner's plate and is gone. The
// stylesheet animates; this module only says from where and to where (CSS variables set in
// px on each card of the trick). Nothing moves with the Motion option off or under
// `prefers-reduced-motion: reduce`: the won trick then stays, whole, until the next lead.

import { motionOn } from "./options.js";

// A won trick stays whole this long, then takes this long to reach its winner. Together
// shorter than a bot's wait before it leads the next trick (1.6 s at the default) and than
// the hold of a hand's 13th trick before its result sheet (room/receive.js).
export const TRICK_HOLD_MS = 800;
export const TRICK_SWEEP_MS = 450;
// A card played takes this long to reach the trick; the deal brings the hand's cards in one
// after another, each this long, this far apart.
export const FLY_MS = 320;
const DEAL_MS = 300;
const DEAL_STEP_MS = 30;
// How long after the click a card of your hand is the one to fly from there.
const OWN_CARD_MS = 10_000;

// Every motion counts from when it began (a card first drawn, a trick won, a hand dealt): the
// page is drawn anew for any message (a chat line, the link's state), and a drawing in the
// middle of a motion carries on with it (a negative animation delay) rather than start it
// again or cut it short.

/** How long ago the trick card `key` was first drawn: 0 if it is new (long ago if unknown). */
export function drawnAgo(state, key) {
  const seen = state.seenTrickCards;
  if (!seen || !seen.has(key)) return 0;
  return seen.get ? Date.now() - seen.get(key) : Infinity;
}

/** After a drawing: when each trick card in `root` was first drawn (a Map kept in the state). */
export function noteDrawn(state, root) {
  if (!(state.seenTrickCards instanceof Map)) state.seenTrickCards = new Map();
  const now = Date.now();
  for (const el of root.querySelectorAll("[data-seen]")) {
    if (!state.seenTrickCards.has(el.dataset.seen)) state.seenTrickCards.set(el.dataset.seen, now);
  }
  if (state.seenTrickCards.size > 400) state.seenTrickCards = new Map([...state.seenTrickCards].slice(-100));
}

/** How long ago the hand in view was dealt (long ago when not known). */
export function dealAge(state) {
  return state.dealtAt ? Math.max(0, Date.now() - state.dealtAt) : Infinity;
}

/** Whether the deal of `count` cards is still coming in. */
export function dealing(state, count) {
  return dealAge(state) < DEAL_MS + count * DEAL_STEP_MS;
}

/** How long ago the trick on the table was won (0 when not known: drawn as just won). */
export function trickAge(state) {
  return state.recentTrickAt ? Math.max(0, Date.now() - state.recentTrickAt) : 0;
}

/** Whether the won trick has gone to its winner by now (with motion on only). */
export function trickGone(state) {
  return Boolean(state.recentTrick) && motionOn() && trickAge(state) >= TRICK_HOLD_MS + TRICK_SWEEP_MS;
}

/** Where a card of your hand was when you played it: it flies to the trick from there. */
export function ownCardFrom(button) {
  if (!button) return null;
  return { card: button.dataset.card, rect: button.getBoundingClientRect(), at: Date.now() };
}

const centre = (r) => ({ x: r.left + r.width / 2, y: r.top + r.height / 2 });

function setPx(el, name, value) {
  el.style.setProperty(name, `${Math.round(value * 10) / 10}px`);
}

/**
 * After a drawing of the table in `root`: aim the cards coming into the trick (`.played.enter`)
 * and those of a won trick (`.trick-area.done`). `own` is `ownCardFrom()` of the card you
 * played last, if any.
 */
export function aimMotion(root, own = null) {
  if (!motionOn()) return;
  const area = root.querySelector(".felt .trick-area");
  if (!area) return;
  const entering = [...area.querySelectorAll(".played.enter")];
  const winner = area.classList.contains("done") ? area.dataset.winnerPlace : null;
  const sweeping = winner ? [...area.querySelectorAll(".played")] : [];
  const cards = [...new Set([...entering, ...sweeping])];
  if (!cards.length) return;
  // Each card's place in the trick, measured with its animation off for a moment (it starts
  // again at once: they were all just drawn).
  for (const li of cards) li.style.animation = "none";
  const placed = new Map(cards.map((li) => [li, li.getBoundingClientRect()]));
  const plate = (place) => root.querySelector(`.felt .seat-plate.place-${place}`);
  const hand = root.querySelector(".play-area .hand");
  for (const li of entering) {
    const to = placed.get(li);
    const place = li.dataset.place;
    let from = null;
    let scale = 0.5;
    if (own && li.dataset.card === own.card && Date.now() - own.at < OWN_CARD_MS) {
      from = own.rect;
      scale = to.width ? own.rect.width / to.width : 1;
    } else if (place === "bottom" && hand && hand.getBoundingClientRect().height) {
      from = hand.getBoundingClientRect(); // your card played for you (the bot, auto-play)
    } else if (plate(place)) {
      from = plate(place).getBoundingClientRect();
    }
    if (!from) continue;
    const a = centre(from);
    const b = centre(to);
    setPx(li, "--fx", a.x - b.x);
    setPx(li, "--fy", a.y - b.y);
    li.style.setProperty("--fs", String(Math.round(scale * 100) / 100));
  }
  const target = winner ? plate(winner) : null;
  if (target) {
    const a = centre(target.getBoundingClientRect());
    for (const li of sweeping) {
      const b = centre(placed.get(li));
      setPx(li, "--sx", a.x - b.x);
      setPx(li, "--sy", a.y - b.y);
    }
  }
  for (const li of cards) li.style.animation = "";
}
