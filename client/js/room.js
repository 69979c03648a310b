// The room page controller: one connection, one state, input handlers that send intents,
// and a render after every change. The server decides everything; nothing here is
// applied before the server confirms it.

import * as api from "./api.js";
import { announce } from "./announce.js";
import { ErrorCode } from "./codes.js";
import { Connection } from "./connection.js";
import { focusWideTables, h, mount, trackDirty } from "./dom.js";
import { bindActions } from "./input.js";
import { initialState, myClockRuns, reduce, remaining, seatName } from "./state.js";
import * as storage from "./storage.js";
import { banner, countdown, formatClock, topbar } from "./views/common.js";
import { renderLobby } from "./views/lobby.js";
import { gameOver, handSheet, resultStrip, scoreSheet } from "./views/sheets.js";
import { readSettings, settingsChanges, wireCustomTarget } from "./views/settings.js";
import { renderTable } from "./views/table.js";

const RECENT_TRICK_MS = 1600;
// The 13th trick stays in view this long before the hand's result sheet opens.
const FINAL_TRICK_MS = 1400;
const TOAST_MS = 4500;

export function startRoom({ main, top, bannerEl, toastEl }, code) {
  let state = { ...initialState(code), seenTrickCards: new Set(), copied: false, playAgainAsked: false, confirmBot: null, pastGames: null };
  let sheetHeldUntil = 0;
  let historyFor = null;
  let chatCount = 0;
  let recentTimer = null;
  let toastTimer = null;
  let shownDialog = null; // the dialog last drawn (class and title): redrawn, it does not fade in again
  let savingSettings = null; // { id, before }: the settings sent, answered by a state or an error
  // While the link is down the clocks stand still on screen (the server's may have paused, or
  // not: its next state says). The local time they stopped at; null while they run.
  let clocksFrozenAt = Date.now();
  // The server sends its recent chat again right after its first state on a new link: no
  // news. Until when such a replay is expected (null: no state yet on this link).
  let replayUntil = null;
  let lastSentChat = null;

  const conn = new Connection({
    code,
    token: () => storage.getToken(code),
    onMessage: (msg) => receive(msg),
    onStatus: (link) => {
      // The chat log stays while reconnecting: the server's replay of its recent chat after the
      // hello adds only what is missing (state.js, addChat).
      if (link.state !== "open" && clocksFrozenAt === null) clocksFrozenAt = Date.now();
      if (link.state !== "open") replayUntil = null;
      // The banner's live region says the drop (once: its countdown is hidden from screen
      // readers); the way back is said here.
      const wasDown = state.link && (state.link.state === "down" || (state.link.state === "connecting" && state.link.attempt));
      if (link.state === "open" && wasDown) announce("Reconnected");
      state = { ...state, link };
      render();
    },
  });

  function receive(msg) {
    if (msg.type === "seated" && msg.token) {
      storage.setToken(code, msg.token);
    }
    if (msg.type === "error" && msg.code === ErrorCode.BAD_TOKEN) {
      // A stale seat token (seat freed by the host, other server): we are a spectator now.
      storage.clearToken(code);
    }
    if (msg.type === "error" && msg.code === ErrorCode.ROOM_NOT_FOUND) {
      state = { ...state, link: { state: "closed", reason: "This room does not exist." } };
      conn.stop();
      render();
      return;
    }
    const before = state;
    // A state brings the server's clocks: they run again from its figures.
    if (msg.type === "state") clocksFrozenAt = null;
    if (msg.type === "state" && replayUntil === null) replayUntil = Date.now() + 500;
    const result = reduce(state, msg);
    state = result.state;
    if (result.events.length) announce(result.events.slice(-3).join(". "));
    if (state.view && state.view.phase !== "over") state.playAgainAsked = false;
    // A whole state (a reconnect) is the server's word on who asked to play again: after a
    // restart it has forgotten the ask, and the button must be there to ask again.
    if (msg.type === "state" && state.room && !(state.room.again || []).includes(state.room.you)) {
      state.playAgainAsked = false;
    }
    // "replaced" comes with a close (4001) that the banner explains.
    if (msg.type === "error" && msg.code !== ErrorCode.REPLACED) showToast(state.toast.text);
    if (state.notice && state.notice !== before.notice) showToast(state.notice.text);
    if (msg.type === "chat" && state.chat !== before.chat) chatArrived(msg);
    // The host's role came to this seat (the host left): said, not only a button appearing.
    const mine = state.room && state.room.you;
    if (mine !== null && mine !== undefined && before.room && before.room.host_seat !== mine && state.room.host_seat === mine) {
      const text = state.room.status === "open" ? "You are the host now: you can start the game." : "You are the host now.";
      showToast(text);
      announce(text);
    }
    if (state.lastGame && state.lastGame !== before.lastGame && !before.playAgainAsked) {
      showToast(`${newGameStarter(state)} started a new game`);
    }
    if (savingSettings && msg.ref === savingSettings.id) {
      const changed = msg.type === "state" ? settingsChanges(savingSettings.before, state.room.settings) : null;
      if (msg.type === "state") showToast(changed ? `Saved: ${changed}` : "Saved: nothing changed");
      savingSettings = null;
    }
    if (state.recentTrick && state.recentTrick !== before.recentTrick) {
      clearTimeout(recentTimer);
      const trick = state.recentTrick;
      recentTimer = setTimeout(() => {
        if (state.recentTrick === trick) {
          state = { ...state, recentTrick: null };
          render();
        }
      }, RECENT_TRICK_MS);
    }
    const sheetOpened = state.sheet && state.sheet !== before.sheet;
    const overOpened = state.view && state.view.phase === "over" && !state.sheet && (!before.view || before.view.phase !== "over");
    if (sheetOpened && before.view && state.recentTrick) {
      // Let the final trick be seen on the table first.
      sheetHeldUntil = Date.now() + FINAL_TRICK_MS;
      setTimeout(() => {
        render();
        if (!collapsed()) focusDialogTop();
      }, FINAL_TRICK_MS + 20);
    }
    if (state.view && state.view.phase === "over") loadPastGames();
    else if (!state.view && state.room) loadPastGames();
    render();
    if ((sheetOpened && Date.now() >= sheetHeldUntil && !collapsed()) || overOpened) focusDialogTop();
    else if (turnIsMine(state) && !turnIsMine(before)) showMyHand();
  }

  // The rule of the result sheet: it is a dialog only while no clock of yours runs. When your
  // turn comes with a timer, it folds into a strip above the table, and stays folded.
  function collapsed() {
    if (!state.sheet) return false;
    if (!state.sheet.collapsed && myClockRuns(state)) state = { ...state, sheet: { ...state.sheet, collapsed: true } };
    return state.sheet.collapsed;
  }

  function loadPastGames() {
    const key = `${state.room.game_id}:${state.view ? state.view.phase : "lobby"}`;
    if (historyFor === key) return;
    historyFor = key;
    api.roomHistory(code).then(
      (data) => {
        state = { ...state, pastGames: data.games || [] };
        render();
      },
      () => {},
    );
  }

  // Who clicked "Play again": the room says (`started_by`), except after a server restart;
  // then the only other person seated, if there is one, else "Someone".
  function newGameStarter(s) {
    const by = s.room.started_by;
    if (Number.isInteger(by) && by !== s.room.you && s.room.seats[by]) return seatName(s.room, by);
    const others = [0, 1, 2, 3].filter((seat) => s.room.seats[seat].kind === "human" && seat !== s.room.you);
    return others.length === 1 ? seatName(s.room, others[0]) : "Someone";
  }

  // Someone else's message, live (not the replay after a reconnect), while the chat is out
  // of view (below the table on a phone): it shows for a moment, and is announced.
  function chatArrived(msg) {
    if (replayUntil === null || Date.now() < replayUntil) return;
    const mine = state.room && state.room.you !== null ? msg.seat === state.room.you : msg.seat == null && msg.text === lastSentChat;
    if (mine) return;
    const log = main.querySelector(".chat-log");
    if (log) {
      const box = log.getBoundingClientRect();
      if (box.bottom > 0 && box.top < window.innerHeight - 40 && !log.closest("[inert]")) return;
    }
    const text = msg.text.length > 60 ? `${msg.text.slice(0, 59)}…` : msg.text;
    showToast(`${msg.name || "Someone"}: ${text}`);
  }

  function showToast(text) {
    clearTimeout(toastTimer);
    toastEl.replaceChildren(h("div", { class: "toast" }, text));
    toastTimer = setTimeout(() => toastEl.replaceChildren(), TOAST_MS);
  }

  function turnIsMine(s) {
    return Boolean(s.view && s.room && s.room.you !== null && s.view.to_act === s.room.you && s.view.phase !== "over" && !s.room.seats[s.room.you].away);
  }

  // Your turn came: bring your hand (and the bidding panel above it) into view when the page
  // is scrolled away from it, as on a phone or a short laptop screen. Nothing moves otherwise.
  function showMyHand() {
    const hand = main.querySelector(".play-area .hand");
    if (!hand || main.querySelector(".sheet")) return;
    const box = hand.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    hand.scrollIntoView({ block: "end", behavior: reduced ? "auto" : "smooth" });
  }

  function focusSelector(selector) {
    const el = main.querySelector(selector);
    if (el) el.focus();
  }

  // A dialog opens at its top: the focus on its heading, not on a button at its bottom that
  // would scroll the heading and the results out of view on a small screen. Tab goes on to
  // its main button; Escape closes it.
  function focusDialogTop() {
    const sheet = main.querySelector(".overlay [role='dialog']");
    if (!sheet) return;
    sheet.scrollTop = 0;
    const heading = sheet.querySelector("h2[tabindex='-1']");
    if (heading) heading.focus({ preventScroll: true });
  }

  // The focus after the table's dialog closes: the move you are asked for, else the hand.
  const TABLE_FOCUS = ".bid-panel button, .hand [data-key]:not([aria-disabled='true']), .hand";

  function send(msg) {
    if (!conn.isOpen) {
      showToast("Not connected right now; try again in a moment.");
      return;
    }
    return conn.send(msg);
  }

  function myName() {
    const field = main.querySelector("#sit-name");
    const name = ((field && field.value) || storage.getName() || "Player").trim().slice(0, 24) || "Player";
    storage.setName(name);
    return name;
  }

  function render() {
    const view = state.view;
    const myTurn = turnIsMine(state);
    document.title = `${myTurn ? "▶ Your turn · " : ""}Spades · Room ${code}`;
    const right = [];
    if (state.clock && state.clock.game_deadline) {
      right.push(h("span", { class: "game-clock" }, "Game clock ", countdown(state.clock.game_deadline, "Game time left", { kind: "game" })));
    }
    right.push(h("span", { class: ["link-dot", state.link.state] , role: "img", "aria-label": state.link.state === "open" ? "Connected" : "Not connected" }));
    mount(top, topbar({ code, right }));
    // Without a room the page itself explains a closed link; the banner would repeat it.
    mount(bannerEl, !state.room && state.link.state === "closed" ? null : banner(state.link));

    let content;
    if (!state.room) {
      content = state.link.state === "closed"
        ? h("section", { class: "card-panel center-box" }, h("h1", {}, "Room not available"), h("p", {}, state.link.reason || ""), h("a", { class: "btn primary", href: "/" }, "Back to home"))
        : h("section", { class: "card-panel center-box" }, h("p", { class: "muted" }, "Joining the table…"));
    } else if (view) {
      // Without a clock of yours running, the 13th trick is shown for a moment before the
      // sheet, and nothing of the next hand asks for input meanwhile.
      const folded = collapsed();
      const held = Boolean(state.sheet) && !folded && Date.now() < sheetHeldUntil;
      const table = renderTable(state, { strip: state.sheet && folded ? resultStrip(state) : null, held });
      content = [table];
      if (state.scoreSheet) content.push(scoreSheet(state));
      else if (state.showLastGame && state.lastGame) content.push(gameOver({ ...state, ...state.lastGame }, { past: true, live: state }));
      else if (state.sheet && !folded && !held) content.push(handSheet(state));
      else if (view.phase === "over" && !state.sheet && state.overClosed !== state.room.game_id) content.push(gameOver(state));
      // Under a dialog the table is inert: Tab stays in the dialog, screen readers too.
      if (content.length > 1) table.inert = true;
    } else {
      content = renderLobby(state, { name: storage.getName() });
    }
    mount(main, content);
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

    for (const el of main.querySelectorAll("[data-seen]")) state.seenTrickCards.add(el.dataset.seen);
    if (state.seenTrickCards.size > 400) state.seenTrickCards = new Set([...state.seenTrickCards].slice(-100));
    const log = main.querySelector(".chat-log");
    if (log && state.chat.length !== chatCount) log.scrollTop = log.scrollHeight;
    chatCount = state.chat.length;
    tick();
  }

  function tick() {
    const frozen = clocksFrozenAt !== null;
    for (const el of document.querySelectorAll("[data-deadline]")) {
      const retry = el.dataset.kind === "retry";
      const left = retry
        ? Math.max(0, Number(el.dataset.deadline) - Date.now())
        : remaining(state, Number(el.dataset.deadline), frozen ? clocksFrozenAt : Date.now());
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

  const actions = {
    play: (data) => send({ type: "play", card: data.card }),
    bid: (data) => {
      const bid = /^\d+$/.test(data.bid) ? Number(data.bid) : data.bid;
      if (bid === "blind nil" && data.confirmed !== "1") {
        state = { ...state, confirmBlind: state.view ? state.view.hand_number : null };
        render();
        // Enter must not make a risky bid that cannot be taken back: Cancel has the focus.
        focusSelector("[data-key='bid-blind-no']");
        return;
      }
      state = { ...state, confirmBlind: null };
      send({ type: "bid", bid });
    },
    "cancel-blind": () => {
      state = { ...state, confirmBlind: null };
      render();
      focusSelector("[data-key='bid-blind']");
    },
    look: () => send({ type: "look" }),
    back: () => send({ type: "back" }),
    hint: () => send({ type: "hint" }),
    "toggle-last": () => {
      state = { ...state, showLastTrick: !state.showLastTrick };
      render();
      const panel = state.showLastTrick && main.querySelector(".last-trick");
      if (panel) panel.scrollIntoView({ block: "nearest" });
    },
    "open-score-sheet": () => {
      state = { ...state, scoreSheet: true };
      render();
      // The heading, not Close at the end: focusing Close would scroll the sheet to its bottom.
      // Tab goes on to Close; Escape closes.
      focusSelector("#score-sheet-title");
    },
    "open-last-game": () => {
      state = { ...state, showLastGame: true };
      render();
      focusDialogTop();
    },
    "close-last-game": () => {
      state = { ...state, showLastGame: false };
      render();
      focusSelector("[data-key='open-last-game']");
    },
    "close-score-sheet": () => {
      state = { ...state, scoreSheet: false, showLastGame: false };
      render();
      // Back to the dialog it was opened from (the hand's result, the game over), if any.
      if (main.querySelector(".overlay")) focusSelector(".overlay [data-action='open-score-sheet'], .overlay h2[tabindex='-1']");
      else focusSelector(`${TABLE_FOCUS}, [data-key='score-sheet']`);
    },
    "close-sheet": () => {
      state = { ...state, sheet: null };
      render();
      if (main.querySelector(".overlay")) focusDialogTop(); // the game over, after the last hand
      else focusSelector(TABLE_FOCUS);
    },
    "close-over": () => {
      // The table and the chat stay usable after the game; "Results" brings this back.
      state = { ...state, overClosed: state.room ? state.room.game_id : null };
      render();
      focusSelector("[data-key='open-over']");
    },
    "open-over": () => {
      state = { ...state, overClosed: null };
      render();
      focusDialogTop();
    },
    "play-again": () => {
      state = { ...state, playAgainAsked: true };
      send({ type: "play_again" });
      render();
    },
    start: () => send({ type: "start" }),
    "set-seat": (data) => {
      // Replacing a person by a bot asks first; the question sits in place of the button.
      const info = state.room && state.room.seats[Number(data.seat)];
      if (data.to === "bot" && info && info.kind === "human" && data.confirmed !== "1") {
        state = { ...state, confirmBot: Number(data.seat) };
        render();
        focusSelector(`[data-key='confirm-bot-${data.seat}']`);
        return;
      }
      state = { ...state, confirmBot: null };
      send({ type: "set_seat", seat: Number(data.seat), to: data.to });
      render();
    },
    "cancel-bot": () => {
      const seat = state.confirmBot;
      state = { ...state, confirmBot: null };
      render();
      focusSelector(`[data-key='bot-${seat}']`);
    },
    sit: (data) => send({ type: "sit", seat: Number(data.seat), name: myName() }),
    stand: () => send({ type: "stand" }),
    reconnect: () => conn.reconnectNow(),
    "copy-invite": async () => {
      const link = new URL((state.room && state.room.invite_url) || `/r/${code}`, location.origin).href;
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
      state = { ...state, copied: true };
      announce(copied ? "Invite link copied" : "Select the link and copy it");
      render();
      setTimeout(() => {
        state = { ...state, copied: false };
        render();
      }, 2500);
    },
    "submit:chat": (form) => {
      const input = form.elements.namedItem("chat-input");
      const text = input.value.trim();
      if (!text) return;
      conn.send({ type: "chat", text });
      lastSentChat = text;
      input.value = "";
      delete input.dataset.dirty;
    },
    "submit:settings": (form) => {
      const settings = readSettings(form, { prefix: "room", includePublic: true });
      const id = send({ type: "settings", settings });
      if (id !== undefined) savingSettings = { id, before: state.room ? state.room.settings : null };
      for (const el of form.querySelectorAll("[data-dirty]")) delete el.dataset.dirty;
    },
  };
  bindActions(document.body, actions);
  trackDirty(main);
  wireCustomTarget(main);
  // Escape closes the dialog on top, as its own close button does (the focus goes where that
  // button sends it). A folded result strip goes too, the focus left where it is.
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
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    const open = main.querySelector(".overlay [role='dialog']");
    if (state.scoreSheet) actions["close-score-sheet"]();
    else if (state.showLastGame && open) actions["close-last-game"]();
    else if (state.sheet && open && open.classList.contains("hand-sheet")) actions["close-sheet"]();
    else if (state.sheet) {
      state = { ...state, sheet: null };
      render();
    } else if (open && open.classList.contains("game-over")) actions["close-over"]();
  });
  setInterval(tick, 250);
  window.addEventListener("resize", () => focusWideTables(main));
  // Phones freeze background tabs and drop sockets: try again as soon as we are back.
  const retrySoon = () => {
    if (!conn.isOpen && state.link.state !== "closed") conn.reconnectNow();
  };
  window.addEventListener("online", retrySoon);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") retrySoon();
  });

  render();
  api.getRoom(code).then(
    () => conn.start(),
    (err) => {
      if (err.status === 404) {
        state = { ...state, link: { state: "closed", reason: `There is no room with the code ${code}.` } };
        render();
      } else {
        conn.start();
      }
    },
  );
}
