// The room page's view: draws the top bar, the banner and the lobby or the table (with the
// dialog on top, if any) from the room's state, and keeps the clocks on screen ticking.

import { focusWideTables, h, mount } from "../dom.js";
import { myClockRuns, remaining } from "../state.js";
import * as storage from "../storage.js";
import { banner, countdown, formatClock, topbar } from "../views/common.js";
import { renderLobby } from "../views/lobby.js";
import { gameOver, handSheet, leaveDialog, resultStrip, scoreSheet } from "../views/sheets.js";
import { renderTable } from "../views/table.js";
import { rulesSheet } from "../views/rules.js";
import { optionsSheet } from "../views/options.js";
import { getOptions } from "../options.js";
import { aimMotion, noteDrawn } from "../motion.js";
import { turnIsMine } from "./focus.js";

/** `render`, `tick` and `collapsed` over the room's shared `ctx` (room.js). */
export function roomView(ctx) {
  const { code, main, top, bannerEl } = ctx;
  let chatCount = 0;
  let shownDialog = null; // the dialog last drawn (class and title): redrawn, it does not fade in again

  // The rule of the result sheet: it is a dialog only while no clock of yours runs. When your
  // turn comes with a timer, it folds into a strip above the table, and stays folded.
  function collapsed() {
    const state = ctx.state;
    if (!state.sheet) return false;
    if (!state.sheet.collapsed && myClockRuns(state)) ctx.state = { ...state, sheet: { ...state.sheet, collapsed: true } };
    return ctx.state.sheet.collapsed;
  }

  function render() {
    const view = ctx.state.view;
    const myTurn = turnIsMine(ctx.state);
    document.title = `${myTurn ? "▶ Your turn · " : ""}Spades · Room ${code}`;
    const right = [];
    if (ctx.state.clock && ctx.state.clock.game_deadline) {
      right.push(h("span", { class: "game-clock" }, "Game clock ", countdown(ctx.state.clock.game_deadline, "Game time left", { kind: "game" })));
    }
    // Who is watching: the players are told (the server counts up to 10, "10+").
    const watching = ctx.state.room ? ctx.state.room.spectators || 0 : 0;
    if (watching) {
      const count = watching >= 10 ? "10+" : String(watching);
      right.push(h("span", { class: "watchers", title: "Spectators watching this room" }, h("span", { "aria-hidden": "true" }, "👁 "), count, h("span", { class: "watch-word" }, " watching")));
    }
    const link = ctx.state.link;
    right.push(h("span", { class: ["link-dot", link.state], role: "img", "aria-label": link.state === "open" ? "Connected" : "Not connected" }));
    // A game of yours being played: the logo asks before leaving it.
    const playing = Boolean(view) && view.phase !== "over" && ctx.state.room && ctx.state.room.you !== null && ctx.state.room.you !== undefined;
    if (!playing && ctx.state.confirmLeave) ctx.state = { ...ctx.state, confirmLeave: false };
    mount(top, topbar({ code, right, guardHome: playing }));
    // Without a room the page itself explains a closed link; the banner would repeat it.
    mount(bannerEl, !ctx.state.room && link.state === "closed" ? null : banner(link));

    let content;
    if (!ctx.state.room) {
      content = link.state === "closed"
        ? h("section", { class: "card-panel center-box" }, h("h1", {}, "Room not available"), h("p", {}, link.reason || ""), h("a", { class: "btn primary", href: "/" }, "Back to home"))
        : h("section", { class: "card-panel center-box" }, h("p", { class: "muted" }, "Joining the table…"));
    } else if (view) {
      // Without a clock of yours running, the 13th trick is shown for a moment before the
      // sheet, and nothing of the next hand asks for input meanwhile.
      const folded = collapsed();
      const state = ctx.state;
      const held = Boolean(state.sheet) && !folded && Date.now() < ctx.sheetHeldUntil;
      const table = renderTable(state, { strip: state.sheet && folded ? resultStrip(state) : null, held });
      content = [table];
      if (state.confirmLeave) content.push(leaveDialog());
      else if (state.scoreSheet) content.push(scoreSheet(state));
      else if (state.rulesSheet) content.push(rulesSheet(state.room.settings));
      else if (state.optionsSheet) content.push(optionsSheet(getOptions()));
      else if (state.showLastGame && state.lastGame) content.push(gameOver({ ...state, ...state.lastGame }, { past: true, live: state }));
      else if (state.sheet && !folded && !held) content.push(handSheet(state));
      else if (view.phase === "over" && !state.sheet && state.overClosed !== state.room.game_id) content.push(gameOver(state));
      // Under a dialog the table is inert: Tab stays in the dialog, screen readers too.
      if (content.length > 1) table.inert = true;
    } else {
      content = renderLobby(ctx.state, { name: storage.getName() });
    }
    mount(main, content);
    // The cards coming to the trick, and a won trick going to its winner: aimed from where
    // their plates (and your card in your hand) are drawn now.
    aimMotion(main, ctx.playedFrom);
    // A toast showing stays clear of the table as it is drawn now.
    if (ctx.toast && ctx.toast.place) ctx.toast.place();
    focusWideTables(main);
    // mount() draws the dialog anew for each state: only its first drawing fades in.
    const overlay = main.querySelector(".overlay");
    const dialog = overlay && overlay.querySelector("[role='dialog']");
    const dialogKey = dialog ? `${dialog.className}|${dialog.getAttribute("aria-labelledby")}|${(main.querySelector(`#${dialog.getAttribute("aria-labelledby")}`) || {}).textContent}` : null;
    if (overlay && dialogKey === shownDialog) overlay.classList.add("steady");
    shownDialog = dialogKey;
    // A dialog is modal: the top bar and the skip link go inert with the table, so Tab
    // stays in the dialog (and the browser's own controls). The banner stays usable.
    const modal = Boolean(dialog);
    const skip = document.querySelector(".skip-link");
    for (const el of [top, skip]) if (el && el.inert !== modal) el.inert = modal;

    const state = ctx.state;
    noteDrawn(state, main); // when each trick card was first drawn: its way in counts from then
    const log = main.querySelector(".chat-log");
    if (log && state.chat.length !== chatCount) log.scrollTop = log.scrollHeight;
    chatCount = state.chat.length;
    tick();
  }

  // The clocks on screen: counted down from the server's figures, standing still while the
  // link is down (ctx.clocksFrozenAt).
  function tick() {
    const frozen = ctx.clocksFrozenAt !== null;
    for (const el of document.querySelectorAll("[data-deadline]")) {
      const retry = el.dataset.kind === "retry";
      const left = retry
        ? Math.max(0, Number(el.dataset.deadline) - Date.now())
        : remaining(ctx.state, Number(el.dataset.deadline), frozen ? ctx.clocksFrozenAt : Date.now());
      const text = retry ? ` in ${Math.ceil(left / 1000)} s` : formatClock(left);
      if (el.textContent !== text) el.textContent = text;
      el.classList.toggle("low", el.dataset.kind === "turn" && !frozen && left !== null && left < 5000);
      if (!retry && el.classList.contains("paused") !== frozen) {
        el.classList.toggle("paused", frozen);
        if (frozen) el.title = "Paused while reconnecting";
        else el.removeAttribute("title");
      }
    }
  }

  return { render, tick, collapsed };
}
