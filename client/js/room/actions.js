// What the player's clicks and forms on the room page do: each sends an intent to the
// server, or changes only what this page shows (a dialog opened or closed).

import { announce } from "../announce.js";
import { report } from "../api.js";
import { credential, ensurePlayer, keepName } from "../player.js";
import * as storage from "../storage.js";
import { NAME_LENGTH, readSettings, settingsErrors } from "../views/settings.js";
import { TABLE_FOCUS, focusDialogTop, focusSelector } from "./focus.js";
import { refusalReason, shake } from "./refusal.js";
import { ownCardFrom } from "../motion.js";

/** The `data-action` handlers of the room page, over the room's shared `ctx` (room.js). */
export function roomActions(ctx) {
  const { code, main } = ctx;
  const render = () => ctx.render();
  const focus = (selector) => focusSelector(main, selector);

  function send(msg) {
    if (!ctx.conn.isOpen) {
      ctx.toast("Not connected right now; try again in a moment.");
      return;
    }
    return ctx.conn.send(msg);
  }

  // `player` for chat and quick chat: this browser's guest credential (signed in: none,
  // the socket's session cookie names the player).
  function speaker() {
    const player = credential();
    return player ? { player } : {};
  }

  function myName() {
    const field = main.querySelector("#sit-name");
    const name = ((field && field.value) || storage.getName() || "Player").trim().slice(0, NAME_LENGTH) || "Player";
    keepName(name);
    return name;
  }

  // A change of this page's own state, drawn at once.
  const show = (change) => {
    ctx.state = { ...ctx.state, ...change };
    render();
  };

  return {
    play: (data) => {
      // Where the card is: it travels to the trick from there once the server has it.
      ctx.playedFrom = ownCardFrom(main.querySelector(`.hand [data-card='${data.card}']`));
      if (ctx.state.refusal) show({ refusal: null });
      send({ type: "play", card: data.card });
    },
    // A card that cannot be played: a shake, and why, by the hand and read out.
    "refused:play": (data) => {
      const text = refusalReason(ctx.state, data.card);
      show({ refusal: { card: data.card, text } });
      announce(text);
      shake(main.querySelector(`.hand [data-card='${data.card}']`));
    },
    bid: (data) => {
      const bid = /^\d+$/.test(data.bid) ? Number(data.bid) : data.bid;
      if (bid === "blind nil" && data.confirmed !== "1") {
        show({ confirmBlind: ctx.state.view ? ctx.state.view.hand_number : null });
        // Enter must not make a risky bid that cannot be taken back: Cancel has the focus.
        focus("[data-key='bid-blind-no']");
        return;
      }
      ctx.state = { ...ctx.state, confirmBlind: null };
      send({ type: "bid", bid });
    },
    "cancel-blind": () => {
      show({ confirmBlind: null });
      focus("[data-key='bid-blind']");
    },
    look: () => send({ type: "look" }),
    back: () => send({ type: "back" }),
    hint: () => send({ type: "hint" }),
    "toggle-last": () => {
      show({ showLastTrick: !ctx.state.showLastTrick });
      const panel = ctx.state.showLastTrick && main.querySelector(".last-trick");
      if (panel) panel.scrollIntoView({ block: "nearest" });
    },
    "open-score-sheet": () => {
      show({ scoreSheet: true });
      // The heading, not Close at the end: focusing Close would scroll the sheet to its bottom.
      // Tab goes on to Close; Escape closes.
      focus("#score-sheet-title");
    },
    "open-options": () => {
      show({ optionsSheet: true });
      focusDialogTop(main);
    },
    "close-options": () => {
      show({ optionsSheet: false });
      focus("[data-key='options']");
    },
    // Chat names this browser's player too, so a ban or a mute of it holds when watching.
    quick: (data) => send({ type: "quick", phrase: data.phrase, ...speaker() }),
    "open-rules": () => {
      show({ rulesSheet: true });
      focusDialogTop(main);
    },
    "close-rules": () => {
      show({ rulesSheet: false });
      focus("[data-key='rules']");
    },
    "open-last-game": () => {
      show({ showLastGame: true });
      focusDialogTop(main);
    },
    "close-last-game": () => {
      show({ showLastGame: false });
      focus("[data-key='open-last-game']");
    },
    "close-score-sheet": () => {
      show({ scoreSheet: false, showLastGame: false });
      // Back to the dialog it was opened from (the hand's result, the game over), if any.
      if (main.querySelector(".overlay")) focus(".overlay [data-action='open-score-sheet'], .overlay h2[tabindex='-1']");
      else focus(`${TABLE_FOCUS}, [data-key='score-sheet']`);
    },
    "close-sheet": () => {
      show({ sheet: null });
      if (main.querySelector(".overlay")) focusDialogTop(main); // the game over, after the last hand
      else focus(TABLE_FOCUS);
    },
    "close-over": () => {
      // The table and the chat stay usable after the game; "Results" brings this back.
      show({ overClosed: ctx.state.room ? ctx.state.room.game_id : null });
      focus("[data-key='open-over']");
    },
    "open-over": () => {
      show({ overClosed: null });
      focusDialogTop(main);
    },
    "play-again": () => {
      ctx.state = { ...ctx.state, playAgainAsked: true };
      send({ type: "play_again" });
      render();
    },
    start: () => send({ type: "start" }),
    "set-seat": (data) => {
      // Putting a person out of a seat (a bot in it, or freed) asks first; the question sits
      // in place of the buttons. The player is told by the server (`unseated`).
      const info = ctx.state.room && ctx.state.room.seats[Number(data.seat)];
      if (info && info.kind === "human" && data.confirmed !== "1") {
        show({ confirmBot: Number(data.seat), confirmTo: data.to });
        focus(`[data-key='confirm-${data.to}-${data.seat}']`);
        return;
      }
      ctx.state = { ...ctx.state, confirmBot: null };
      send({ type: "set_seat", seat: Number(data.seat), to: data.to });
      render();
    },
    "cancel-bot": () => {
      const seat = ctx.state.confirmBot;
      const to = ctx.state.confirmTo;
      show({ confirmBot: null });
      focus(`[data-key='${to === "empty" ? "free" : "bot"}-${seat}']`);
    },
    // The seat records this browser's player (made first, on a first visit straight to a room).
    sit: async (data) => {
      const name = myName();
      await ensurePlayer();
      const player = credential();
      send({ type: "sit", seat: Number(data.seat), name, ...(player ? { player } : {}) });
    },
    // The logo during a game asks first (views/sheets.js, leaveDialog).
    "leave-home": () => {
      show({ confirmLeave: true });
      focusDialogTop(main);
    },
    "stay-here": () => {
      show({ confirmLeave: false });
      focus(TABLE_FOCUS);
    },
    stand: () => send({ type: "stand" }),
    reconnect: () => ctx.conn.reconnectNow(),
    "copy-invite": async () => {
      const link = new URL((ctx.state.room && ctx.state.room.invite_url) || `/r/${code}`, location.origin).href;
      let copied = false;
      try {
        await navigator.clipboard.writeText(link);
        copied = true;
      } catch {
        const field = main.querySelector("#invite-link");
        if (field) {
          field.select();
          copied = document.execCommand && document.execCommand("copy");
        }
      }
      ctx.state = { ...ctx.state, copied: true };
      announce(copied ? "Invite link copied" : "Select the link and copy it");
      render();
      setTimeout(() => show({ copied: false }), 2500);
    },
    "submit:chat": (form) => {
      const input = form.elements.namedItem("chat-input");
      const text = input.value.trim();
      if (!text) return;
      ctx.conn.send({ type: "chat", text, ...speaker() });
      ctx.lastSentChat = text;
      input.value = "";
      delete input.dataset.dirty;
    },
    // Reporting a chat message: the reason is asked under the log, then sent over REST.
    "report-chat": (data) => {
      const at = Number(data.at);
      const seat = data.seat === "" ? null : Number(data.seat);
      const said = ctx.state.chat.find((m) => m.at === at && (m.seat ?? null) === seat);
      show({ reporting: { at, seat, name: said ? said.name : null } });
      focus("#report-reason");
    },
    "cancel-report": () => show({ reporting: null }),
    // Hiding a name's chat is this browser's own, for this room (the others still see it).
    "hide-chat": (data) => {
      const hidden = [...new Set([...(ctx.state.hidden || []), data.name])];
      storage.setHidden(code, hidden);
      show({ hidden });
      announce(`${data.name}'s messages are hidden`);
    },
    "show-chat": (data) => {
      const hidden = (ctx.state.hidden || []).filter((n) => n !== data.name);
      storage.setHidden(code, hidden);
      show({ hidden });
    },
    "submit:report": async (form) => {
      const reason = form.elements.namedItem("report-reason").value.trim();
      const reporting = ctx.state.reporting;
      if (!reason || !reporting) return;
      await ensurePlayer();
      try {
        await report({
          room: code, seat: reporting.seat, message_at: reporting.at, reason,
          game_id: (ctx.state.room && ctx.state.room.game_id) ?? null, seq: ctx.state.seq >= 0 ? ctx.state.seq : null,
        });
        show({ reporting: null });
        ctx.toast("Report sent to the administrators. Thank you.");
      } catch (err) {
        ctx.toast(`The report was not sent: ${err.message}`);
      }
    },
    "submit:settings": (form) => {
      // A value the server would refuse is said under its field, and nothing is sent.
      const errors = settingsErrors(form, { prefix: "room" });
      show({ settingsErrors: Object.keys(errors).length ? errors : null });
      if (Object.keys(errors).length) {
        focus(`[id='${Object.keys(errors)[0]}']`);
        return;
      }
      const settings = readSettings(form, { prefix: "room", includePublic: true });
      const id = send({ type: "settings", settings });
      if (id !== undefined) ctx.savingSettings = { id, before: ctx.state.room ? ctx.state.room.settings : null };
      for (const el of form.querySelectorAll("[data-dirty]")) delete el.dataset.dirty;
    },
  };
}
