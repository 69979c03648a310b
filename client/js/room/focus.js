// Where the focus and the scroll go on the room page: dialogs open at their top, your turn
// brings your hand into view.

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

// Your turn came: bring your hand (and the bidding panel above it) into view when the page
// is scrolled away from it, as on a phone or a short laptop screen. Nothing moves otherwise.
export function showMyHand(main) {
  const hand = main.querySelector(".play-area .hand");
  if (!hand || main.querySelector(".sheet")) return;
  const box = hand.getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= window.innerHeight) return;
  const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  hand.scrollIntoView({ block: "end", behavior: reduced ? "auto" : "smooth" });
}

/** Whether the seat of this page is to act now (and not marked away). */
export function turnIsMine(s) {
  return Boolean(s.view && s.room && s.room.you !== null && s.view.to_act === s.room.you && s.view.phase !== "over" && !s.room.seats[s.room.you].away);
}
