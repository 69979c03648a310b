// Where the focus and the scroll go on the room page: dialogs open at their top, your turn
// brings your hand into view.

import { motionOn } from "../options.js";

// The focus after the table's dialog closes: the move you are asked for, else the hand.
export const TABLE_FOCUS = ".bid-panel button, .hand [data-key]:not([aria-disabled='true']), .hand";

export function focusSelector(main, selector) {
  const el = main.querySelector(selector);
  if (el) el.focus();
}

// A dialog opens at its top: the focus on its heading, not on a button at its bottom that
// would scroll the heading and the results out of view on a small screen. Tab goes on to
// its main button; Escape closes it.
export function focusDialogTop(main) {
  const sheet = main.querySelector(".overlay [role='dialog']");
  if (!sheet) return;
  sheet.scrollTop = 0;
  const heading = sheet.querySelector("h2[tabindex='-1']");
  if (heading) heading.focus({ preventScroll: true });
}

// Your turn came: bring what you need to see into view when the page is scrolled away from it
// (a phone scrolled down to the chat, a short laptop screen): the trick (what was led) and
// your hand, with the bidding panel between them. When they cannot all fit, the hand and the
// bidding panel come first; the whole felt when it fits too. Nothing moves when they are in
// view already.
export function showMyHand(main) {
  const hand = main.querySelector(".play-area .hand");
  if (!hand || main.querySelector(".sheet")) return;
  const parts = [".felt .trick-area", ".play-area .bid-panel", ".play-area .hand"]
    .map((selector) => main.querySelector(selector))
    .filter(Boolean)
    .map((el) => el.getBoundingClientRect());
  const bar = document.querySelector(".banner-slot .banner");
  const high = bar ? bar.getBoundingClientRect().bottom : 0; // the pinned "Connection lost" banner
  const low = window.innerHeight;
  const bottom = Math.max(...parts.map((r) => r.bottom));
  let top = Math.min(...parts.map((r) => r.top));
  // The whole felt, the plate across the table included, when it fits on the screen with
  // them (a phone's turn left it cut at the top of the screen once the bidding panel went).
  const felt = main.querySelector(".play-area .felt");
  if (felt && bottom - felt.getBoundingClientRect().top <= low - high - 8) top = Math.min(top, felt.getBoundingClientRect().top);
  if (top >= high && bottom <= low) return;
  // Too tall for the screen: from the bidding panel (or the hand) down, without the trick.
  if (bottom - top > low - high - 8) top = parts.length > 1 ? parts[1].top : parts[0].top;
  let by = bottom + 4 - low;
  if (top - by < high) by = top - high - 4;
  window.scrollBy({ top: by, behavior: motionOn() ? "smooth" : "auto" });
}

/** Whether the seat of this page is to act now (and not marked away). */
export function turnIsMine(s) {
  return Boolean(s.view && s.room && s.room.you !== null && s.view.to_act === s.room.you && s.view.phase !== "over" && !s.room.seats[s.room.you].away);
}
