// The room page controller: one connection, one state, input handlers that send intents,
// and a render after every change. The server decides everything; nothing here is
// applied before the server confirms it. Its parts, each a module of room/: the view
// (view.js), the server's messages (receive.js), the player's actions (actions.js) and
// keys (keys.js); they share the room's `ctx`, made here.

import * as api from "./api.js";
import { announce } from "./announce.js";
import { ErrorCode } from "./codes.js";
import { Connection } from "./connection.js";
import { focusWideTables, trackDirty } from "./dom.js";
import { bindActions } from "./input.js";
import { initialState } from "./state.js";
import * as storage from "./storage.js";
import { wireCustomTarget } from "./views/settings.js";
import { roomActions } from "./room/actions.js";
import { bindRoomKeys } from "./room/keys.js";
import { roomReceiver } from "./room/receive.js";
import { toaster } from "./room/toast.js";
import { applyOptions, setOption } from "./options.js";
import { soundSwitchedOn } from "./sound.js";
import { roomView } from "./room/view.js";

export function startRoom({ main, top, bannerEl, toastEl }, code) {
  // What the parts share: the state (replaced on every change), and the page's own facts
  // about it. Each part reads `ctx.state` when it runs, never a copy kept from before.
  const ctx = {
    code,
    main,
    top,
    bannerEl,
    state: { ...initialState(code), hidden: storage.getHidden(code), seenTrickCards: new Map(), copied: false, playAgainAsked: false, confirmBot: null, pastGames: null },
    sheetHeldUntil: 0,
    savingSettings: null, // { id, before }: the settings sent, answered by a state or an error
    // While the link is down the clocks stand still on screen (the server's may have paused, or
    // not: its next state says). The local time they stopped at; null while they run.
    clocksFrozenAt: Date.now(),
    // The server sends its recent chat again right after its first state on a new link: no
    // news. Until when such a replay is expected (null: no state yet on this link).
    replayUntil: null,
    lastSentChat: null,
    // Where the card you played last was in your hand (motion.js: it travels from there).
    playedFrom: null,
    conn: null,
  };
  ctx.toast = toaster(toastEl);
  const { render, tick, collapsed } = roomView(ctx);
  ctx.render = render;
  ctx.collapsed = collapsed;
  const receive = roomReceiver(ctx);

  ctx.conn = new Connection({
    code,
    token: () => storage.getToken(code),
    onMessage: (msg) => {
      if (msg.type === "seated" && msg.token) {
        storage.setToken(code, msg.token);
      }
      if (msg.type === "error" && msg.code === ErrorCode.BAD_TOKEN) {
        // A stale seat token (seat freed by the host, other server): we are a spectator now.
        storage.clearToken(code);
      }
      receive(msg);
    },
    onStatus: (link) => {
      // The chat log stays while reconnecting: the server's replay of its recent chat after the
      // hello adds only what is missing (state.js, addChat).
      if (link.state !== "open" && ctx.clocksFrozenAt === null) ctx.clocksFrozenAt = Date.now();
      if (link.state !== "open") ctx.replayUntil = null;
      // The banner's live region says the drop (once: its countdown is hidden from screen
      // readers); the way back is said here.
      const was = ctx.state.link;
      const wasDown = was && (was.state === "down" || (was.state === "connecting" && was.attempt));
      if (link.state === "open" && wasDown) announce("Reconnected");
      // Every state says the link is open: drawn again only when that is news.
      const same = was && was.state === "open" && link.state === "open";
      ctx.state = { ...ctx.state, link };
      if (!same) render();
    },
  });
  const conn = ctx.conn;

  const actions = roomActions(ctx);
  bindActions(document.body, actions);
  trackDirty(main);
  wireCustomTarget(main);
  bindRoomKeys(ctx, actions);
  // The table options (views/options.js): each switch applies at once and is remembered.
  applyOptions();
  main.addEventListener("change", (event) => {
    const name = event.target.dataset && event.target.dataset.option;
    if (!name) return;
    setOption(name, event.target.checked);
    if (name === "sound" && event.target.checked) soundSwitchedOn();
    render();
  });
  setInterval(tick, 250);
  window.addEventListener("resize", () => focusWideTables(main));
  // Phones freeze background tabs and drop sockets: try again as soon as we are back.
  const retrySoon = () => {
    if (!conn.isOpen && ctx.state.link.state !== "closed") conn.reconnectNow();
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
        ctx.state = { ...ctx.state, link: { state: "closed", reason: `There is no room with the code ${code}.` } };
        render();
      } else {
        conn.start();
      }
    },
  );
}
