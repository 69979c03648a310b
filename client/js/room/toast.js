// The room's toasts: one short message at a time, gone after a few seconds. At the table a
// toast never covers a plate, the trick, the bid row or your hand (a timeout's toast on a
// phone once hid the partner's plate): it goes where the stylesheet puts it (under the top
// bar on a phone, at the bottom on a desktop) when that place is clear, else to the first
// clear place from the top of the screen, placed again as the page scrolls or is drawn anew.

import { h } from "../dom.js";

const TOAST_MS = 4500;
// Never under a toast: the plates, the trick (where its cards are or will be), the bid
// buttons, the cards of your hand. Better not: the status line with your clock, the bid
// panel's words, the table's buttons.
const NEVER = [".felt .seat-plate", ".felt .trick-area", ".play-area .bid-buttons", ".play-area .hand .card"];
const RATHER_NOT = [
  ".play-area .status-line", ".play-area .bid-panel", ".play-area .play-refusal", ".play-area .tools",
  ".play-area .turn-alert", ".play-area .result-strip",
];
const EDGE = 8;
const STEP = 4;

function boxes(selectors) {
  return selectors
    .flatMap((selector) => [...document.querySelectorAll(selector)])
    .map((el) => el.getBoundingClientRect())
    .filter((r) => r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < window.innerHeight);
}

/** Put the toast shown in `toastEl` (if any) where it covers none of the table's parts. */
export function placeToast(toastEl) {
  toastEl.style.top = "";
  toastEl.style.bottom = "";
  const toast = toastEl.firstElementChild;
  if (!toast) return;
  toast.classList.remove("compact");
  if (!document.querySelector("#main .table-screen")) return;
  const never = boxes(NEVER);
  const rather = boxes(RATHER_NOT);
  // Clear of everything; clear of what it must never cover; on one line (the whole text is
  // still read out) when a screen packed with the table leaves no more room.
  if (fit(toastEl, [...never, ...rather]) || fit(toastEl, never)) return;
  toast.classList.add("compact");
  if (fit(toastEl, never)) return;
  toast.classList.remove("compact");
}

// The first clear place for the toast: where the stylesheet put it, else from the top of the
// screen down. False (and left where it is) when there is none.
function fit(toastEl, list) {
  const box = toastEl.firstElementChild.getBoundingClientRect();
  const banner = document.querySelector(".banner-slot .banner"); // "Connection lost", pinned on top
  const high = (banner ? banner.getBoundingClientRect().bottom : 0) + EDGE;
  const low = window.innerHeight - EDGE - box.height;
  const clear = (top) => list.every((r) => r.right <= box.left || r.left >= box.right || r.bottom <= top || r.top >= top + box.height);
  let top = clear(box.top) ? box.top : null;
  for (let y = high; top === null && y <= low; y += STEP) if (clear(y)) top = y;
  if (top === null) return false;
  if (top !== box.top) {
    toastEl.style.top = `${Math.round(top)}px`;
    toastEl.style.bottom = "auto";
  }
  return true;
}

/** A function that shows `text` in `toastEl`, replacing the toast before it. */
export function toaster(toastEl) {
  let timer = null;
  let pending = false;
  const again = () => {
    if (pending || !toastEl.firstElementChild) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      placeToast(toastEl);
    });
  };
  window.addEventListener("scroll", again, { passive: true });
  window.addEventListener("resize", again);
  const show = (text) => {
    clearTimeout(timer);
    toastEl.replaceChildren(h("div", { class: "toast" }, text));
    placeToast(toastEl);
    timer = setTimeout(() => toastEl.replaceChildren(), TOAST_MS);
  };
  // The page was drawn anew (a card came to the trick, the bid row went): placed again.
  show.place = () => placeToast(toastEl);
  return show;
}
