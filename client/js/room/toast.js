// The room's toasts: one short message at a time, gone after a few seconds.

import { h } from "../dom.js";

const TOAST_MS = 4500;

/** A function that shows `text` in `toastEl`, replacing the toast before it. */
export function toaster(toastEl) {
  let timer = null;
  return (text) => {
    clearTimeout(timer);
    toastEl.replaceChildren(h("div", { class: "toast" }, text));
    timer = setTimeout(() => toastEl.replaceChildren(), TOAST_MS);
  };
}
