// What the room page does with each message of the server: the state reduced (state.js),
// then what the change asks for on screen: toasts, announcements, the final trick held in
// view, the past games loaded, the focus moved.

import * as api from "../api.js";
import { announce } from "../announce.js";
import { ErrorCode } from "../codes.js";
import { reduce, seatName } from "../state.js";
import * as storage from "../storage.js";
import { getOptions, motionOn } from "../options.js";
import { TRICK_HOLD_MS, TRICK_SWEEP_MS } from "../motion.js";
import { playSound, vibrateTurn } from "../sound.js";
import { quickWords } from "../views/options.js";
import { settingsChanges } from "../views/settings.js";
import { focusDialogTop, showMyHand, turnIsMine } from "./focus.js";

// The 13th trick stays in view this long before the hand's result sheet opens.
const FINAL_TRICK_MS = 1400;
// A quick chat phrase shows by its player's plate this long.
const QUICK_MS = 4000;
// A forced last card is played for you (a table option) after this moment.
const AUTO_PLAY_MS = 600;

// What a change of the game sounds and moves like: a card played, a trick won (sound.js),
// the deal (the hand's cards come in once, views/table.js).
function feel(before, state) {
  const pv = before.view;
  const nv = state.view;
  if (!pv || !nv || !before.room || before.room.game_id !== state.room.game_id) return;
  if (state.recentTrick && state.recentTrick !== before.recentTrick) playSound("trick");
  else if (nv.current_trick && nv.hand_number === pv.hand_number && nv.current_trick.cards.length > ((pv.current_trick && pv.current_trick.cards.length) || 0)) playSound("card");
  if (nv.hand && (!pv.hand || nv.hand_number !== pv.hand_number)) state.dealtAt = Date.now();
}

// Who clicked "Play again": the room says (`started_by`), except after a server restart;
// then the only other person seated, if there is one, else "Someone".
function newGameStarter(s) {
  const by = s.room.started_by;
  if (Number.isInteger(by) && by !== s.room.you && s.room.seats[by]) return seatName(s.room, by);
  const others = [0, 1, 2, 3].filter((seat) => s.room.seats[seat].kind === "human" && seat !== s.room.you);
  return others.length === 1 ? seatName(s.room, others[0]) : "Someone";
}

/** The handler of the server's messages, over the room's shared `ctx` (room.js). */
export function roomReceiver(ctx) {
  const { code, main } = ctx;
  let historyFor = null;

  function loadPastGames() {
    const key = `${ctx.state.room.game_id}:${ctx.state.view ? ctx.state.view.phase : "lobby"}`;
    if (historyFor === key) return;
    historyFor = key;
    api.roomHistory(code).then(
      (data) => {
        ctx.state = { ...ctx.state, pastGames: data.games || [] };
        ctx.render();
      },
      () => {},
    );
  }

  // Someone else's message, live (not the replay after a reconnect), while the chat is out
  // of view (below the table on a phone): it shows for a moment, and is announced.
  function chatArrived(msg) {
    if (ctx.replayUntil === null || Date.now() < ctx.replayUntil) return;
    const room = ctx.state.room;
    const mine = room && room.you !== null ? msg.seat === room.you : msg.seat == null && msg.text === ctx.lastSentChat;
    if (mine) return;
    const log = main.querySelector(".chat-log");
    if (log) {
      const box = log.getBoundingClientRect();
      if (box.bottom > 0 && box.top < window.innerHeight - 40 && !log.closest("[inert]")) return;
    }
    const text = msg.text.length > 60 ? `${msg.text.slice(0, 59)}…` : msg.text;
    ctx.toast(`${msg.name || "Someone"}: ${text}`);
  }

  return function receive(msg) {
    if (msg.type === "error" && msg.code === ErrorCode.ROOM_NOT_FOUND) {
      ctx.state = { ...ctx.state, link: { state: "closed", reason: "This room does not exist." } };
      ctx.conn.stop();
      ctx.render();
      return;
    }
    const before = ctx.state;
    // A state brings the server's clocks: they run again from its figures.
    if (msg.type === "state") ctx.clocksFrozenAt = null;
    if (msg.type === "state" && ctx.replayUntil === null) ctx.replayUntil = Date.now() + 500;
    const result = reduce(ctx.state, msg);
    const state = result.state;
    ctx.state = state;
    if (result.events.length) announce(result.events.slice(-3).join(". "));
    // Why a card could not be played holds until the turn or the hand changes.
    if (state.refusal && (!state.view || !before.view || state.view.to_act !== before.view.to_act || state.view.hand !== before.view.hand)) state.refusal = null;
    if (state.view && state.view.phase !== "over") state.playAgainAsked = false;
    // A whole state (a reconnect) is the server's word on who asked to play again: after a
    // restart it has forgotten the ask, and the button must be there to ask again.
    if (msg.type === "state" && state.room && !(state.room.again || []).includes(state.room.you)) {
      state.playAgainAsked = false;
    }
    feel(before, state);
    // A won trick goes to its winner (motion on): drawn again once it is gone.
    if (state.recentTrick && state.recentTrick !== before.recentTrick && motionOn()) {
      setTimeout(() => ctx.render(), TRICK_HOLD_MS + TRICK_SWEEP_MS + 30);
    }
    if (msg.type === "quick") showQuick(msg);
    // The host put you out of your seat: said, and the seat's token forgotten.
    if (msg.type === "unseated") {
      storage.clearToken(code);
      const text = msg.to === "bot"
        ? "The host gave your seat to a bot: you are watching now."
        : "The host freed your seat: you are watching now, and may take a free seat.";
      ctx.toast(text);
      announce(text);
    }
    // "replaced" comes with a close (4001) that the banner explains.
    if (msg.type === "error" && msg.code !== ErrorCode.REPLACED) ctx.toast(state.toast.text);
    if (state.notice && state.notice !== before.notice) ctx.toast(state.notice.text);
    if (msg.type === "chat" && state.chat !== before.chat) chatArrived(msg);
    // The host's role came to this seat (the host left): said, not only a button appearing.
    const mine = state.room && state.room.you;
    if (mine !== null && mine !== undefined && before.room && before.room.host_seat !== mine && state.room.host_seat === mine) {
      const text = state.room.status === "open" ? "You are the host now: you can start the game." : "You are the host now.";
      ctx.toast(text);
      announce(text);
    }
    if (state.lastGame && state.lastGame !== before.lastGame && !before.playAgainAsked) {
      ctx.toast(`${newGameStarter(state)} started a new game`);
    }
    const saving = ctx.savingSettings;
    if (saving && msg.ref === saving.id) {
      const changed = msg.type === "state" ? settingsChanges(saving.before, state.room.settings) : null;
      if (msg.type === "state") ctx.toast(changed ? `Saved: ${changed}` : "Saved: nothing changed");
      ctx.savingSettings = null;
    }
    const sheetOpened = state.sheet && state.sheet !== before.sheet;
    const overOpened = state.view && state.view.phase === "over" && !state.sheet && (!before.view || before.view.phase !== "over");
    if (sheetOpened && before.view && state.recentTrick) {
      // Let the final trick be seen on the table first.
      ctx.sheetHeldUntil = Date.now() + FINAL_TRICK_MS;
      setTimeout(() => {
        ctx.render();
        if (!ctx.collapsed()) focusDialogTop(main);
      }, FINAL_TRICK_MS + 20);
    }
    if (state.view && state.view.phase === "over") loadPastGames();
    else if (!state.view && state.room) loadPastGames();
    ctx.render();
    if ((sheetOpened && Date.now() >= ctx.sheetHeldUntil && !ctx.collapsed()) || overOpened) focusDialogTop(main);
    else if (turnIsMine(ctx.state) && !turnIsMine(before)) showMyHand(main);
    if (turnIsMine(ctx.state) && !turnIsMine(before)) {
      playSound("turn");
      vibrateTurn();
    }
    autoPlayLastCard();
  };

  // A player's quick chat phrase: by their plate for a moment, and read out (unless hidden).
  function showQuick(msg) {
    const room = ctx.state.room;
    if (getOptions().hideQuick || !room || !Number.isInteger(msg.seat)) return;
    const entry = { phrase: msg.phrase };
    ctx.state.quick = { ...(ctx.state.quick || {}), [msg.seat]: entry };
    announce(`${seatName(room, msg.seat)}: ${quickWords(msg.phrase)}`);
    setTimeout(() => {
      const quick = ctx.state.quick;
      if (!quick || quick[msg.seat] !== entry) return;
      const rest = { ...quick };
      delete rest[msg.seat];
      ctx.state = { ...ctx.state, quick: rest };
      ctx.render();
    }, QUICK_MS);
  }

  // Your last card, the only one you can play: played for you (a table option), a moment
  // after your turn comes.
  function autoPlayLastCard() {
    const s = ctx.state;
    const view = s.view;
    if (!getOptions().autoPlay || !turnIsMine(s) || view.phase !== "playing" || !view.hand || view.hand.length !== 1) return;
    const card = view.hand[0];
    const key = `${s.room.game_id}-${view.hand_number}`;
    if (ctx.autoPlayed === key || !(view.legal || []).some((a) => a.type === "play" && a.card === card)) return;
    ctx.autoPlayed = key;
    setTimeout(() => {
      const now = ctx.state;
      if (turnIsMine(now) && now.view.hand && now.view.hand.length === 1 && now.view.hand[0] === card && ctx.conn.isOpen) {
        ctx.conn.send({ type: "play", card });
      }
    }, AUTO_PLAY_MS);
  }
}
