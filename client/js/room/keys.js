// The room page's keyboard: arrow keys along the hand and the bids, Escape for dialogs.

/** Bind the keys, over the room's shared `ctx` (room.js) and its `actions`. */
export function bindRoomKeys(ctx, actions) {
  const { main } = ctx;
  // Arrow keys (and Home/End) move along the hand or the bid buttons, over the cards that
  // cannot be played: Tab alone visited all thirteen cards.
  main.addEventListener("keydown", (event) => {
    const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1, Home: -Infinity, End: Infinity }[event.key];
    if (step === undefined || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const group = event.target.closest && event.target.closest("[data-group='hand'], [data-group='bids']");
    if (!group) return;
    // The moves only: Hint, in the same row, is one Tab away.
    const all = [...group.querySelectorAll("button[data-action='bid'], button[data-action='look'], button[data-action='play']")];
    const usable = all.filter((el) => el.getAttribute("aria-disabled") !== "true");
    const items = usable.length ? usable : all;
    if (!items.length) return;
    let at = items.indexOf(event.target);
    if (at < 0) at = step > 0 ? -1 : items.length;
    const next = step === -Infinity ? 0 : step === Infinity ? items.length - 1 : Math.min(items.length - 1, Math.max(0, at + step));
    event.preventDefault();
    items[next].focus();
  });
  // The hand's one Tab stop follows the focus (roving tabindex): Tab leaves the hand, and
  // Shift+Tab back into it lands on the card last visited.
  main.addEventListener("focusin", (event) => {
    const card = event.target.closest && event.target.closest(".hand [data-action='play']");
    if (!card) return;
    for (const other of card.parentElement.querySelectorAll("[data-action='play']")) other.tabIndex = other === card ? 0 : -1;
    ctx.state.handFocus = card.dataset.card;
  });
  // Escape closes the dialog on top, as its own close button does (the focus goes where that
  // button sends it). A folded result strip goes too, the focus left where it is.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    const open = main.querySelector(".overlay [role='dialog']");
    const state = ctx.state;
    if (state.confirmLeave) actions["stay-here"]();
    else if (state.scoreSheet) actions["close-score-sheet"]();
    else if (state.rulesSheet) actions["close-rules"]();
    else if (state.optionsSheet) actions["close-options"]();
    else if (state.showLastGame && open) actions["close-last-game"]();
    else if (state.sheet && open && open.classList.contains("hand-sheet")) actions["close-sheet"]();
    else if (state.sheet) {
      ctx.state = { ...state, sheet: null };
      ctx.render();
    } else if (open && open.classList.contains("game-over")) actions["close-over"]();
  });
}
