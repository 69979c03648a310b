// The home page controller: keeps the form in localStorage, calls the REST API, and
// goes to /r/{code} once a room exists (the seat token is stored first).

import { startAccount } from "./account.js";
import * as api from "./api.js";
import { h, mount, trackDirty } from "./dom.js";
import { bindActions } from "./input.js";
import { ensurePlayer, keepName, nameKept } from "./player.js";
import * as storage from "./storage.js";
import { readSolo, renderHome } from "./views/home.js";
import { readSettings, serverFieldError, settingsErrors, settingsSummary, wireCustomTarget } from "./views/settings.js";

const ROOMS_REFRESH_MS = 10000;

export function startHome(main) {
  const model = {
    name: storage.getName(),
    settings: storage.getSettings(),
    solo: storage.getSolo(),
    rooms: null,
    roomsLoading: true,
    player: storage.getPlayer(),
    myRooms: [],
    busy: false,
    error: null,
    joinError: null,
    fieldErrors: null, // {field id: the reason in words}, said under each field refused
  };

  // The Account section keeps its own state: the same element is put back at each render.
  const accountEl = h("section", { id: "account" });
  startAccount(accountEl);
  const render = () => mount(main, [renderHome(model), accountEl]);

  const currentName = () => {
    const field = main.querySelector("#player-name");
    const name = (field ? field.value : model.name).trim() || "Player";
    keepName(name);
    model.name = name;
    return name;
  };

  // Only what the server would take is remembered: a value refused stays in its field, with
  // its message, and is not saved for the next visit.
  const rememberForm = () => {
    const form = main.querySelector("form[data-form='create']");
    if (!form || Object.keys(settingsErrors(form, { prefix: "new" })).length) return;
    model.settings = readSettings(form, { prefix: "new", includePublic: true });
    storage.setSettings(model.settings);
  };

  // The fields of `form` ("solo" or "create") the server would refuse: said under each, the
  // first one focused. True when there is none.
  const checkFields = (form, prefix) => {
    const errors = settingsErrors(form, { prefix });
    const others = Object.fromEntries(Object.entries(model.fieldErrors || {}).filter(([id]) => !id.startsWith(`${prefix}-`)));
    model.fieldErrors = { ...others, ...errors };
    if (!Object.keys(errors).length) return true;
    model.error = null;
    render();
    const first = main.querySelector(`[id='${Object.keys(errors)[0]}']`);
    if (first) first.focus();
    return false;
  };

  const loadRooms = async () => {
    try {
      const data = await api.listRooms();
      model.rooms = data.rooms || [];
      model.roomsError = null;
    } catch (err) {
      model.rooms = model.rooms || [];
      // Not "no room is waiting": we could not ask.
      model.roomsError = err.status === 0 ? "Can't reach the server to list the public rooms." : "The public rooms could not be listed just now.";
    }
    model.roomsLoading = false;
    render();
  };

  // "Return to your game": the live rooms where this browser's player has a seat.
  const loadMyRooms = async () => {
    if (!model.player) return;
    try {
      const data = await api.myRooms();
      model.myRooms = data.rooms || [];
    } catch {
      return; // the section stays as it was; the public rooms say when the server is away
    }
    render();
  };

  // `form`: which form asked ("solo" or "create"): its error is said under its own button,
  // in view (on a phone the other form may be a screen away).
  const enter = async (call, body, form) => {
    model.busy = true;
    model.error = null;
    model.joinError = null;
    render();
    try {
      // The seat records this browser's player, under the name just picked.
      await ensurePlayer();
      await nameKept();
      const made = await call(body);
      storage.setToken(made.code, made.token);
      location.assign(`/r/${encodeURIComponent(made.code)}`);
    } catch (err) {
      model.busy = false;
      // A refusal that names a field is said under that field.
      const field = err.status === 400 || err.status === 422 ? serverFieldError(err.message, { prefix: form === "solo" ? "solo" : "new" }) : null;
      if (field) {
        model.fieldErrors = { ...(model.fieldErrors || {}), ...field };
        render();
        const input = main.querySelector(`[id='${Object.keys(field)[0]}']`);
        if (input) input.focus();
        return;
      }
      model.error = { form, text: err.message || "Something went wrong" };
      render();
      showError(`form[data-form='${form}'] ~ .form-error, form[data-form='${form}'] .form-error`);
    }
  };

  // The message about a code goes under the field, which may be at the bottom of a phone's
  // screen: it is scrolled into view (the field stays in view above it). role="alert" reads it.
  const showJoinError = () => {
    model.error = null; // one message at a time: the one about what was just tried
    render();
    showError(".join-form .form-error");
  };
  const showError = (selector) => {
    const shown = main.querySelector(selector);
    if (!shown) return;
    const box = shown.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    shown.scrollIntoView({ block: "nearest", behavior: reduced ? "auto" : "smooth" });
  };

  bindActions(main, {
    // "Return to your game" on a device that has no token for that seat (signed in
    // elsewhere first): joining gives the player their own seat back, with a new token.
    "return": async ({ code }) => {
      if (!storage.getToken(code)) {
        try {
          const joined = await api.joinRoom(code, { name: model.name || "Player" });
          if (joined.token) storage.setToken(code, joined.token);
        } catch {
          // the room page explains whatever is wrong
        }
      }
      location.assign(`/r/${encodeURIComponent(code)}`);
    },
    "refresh-rooms": () => {
      model.roomsLoading = true;
      loadRooms();
    },
    "submit:solo": (form) => {
      if (!checkFields(form, "solo")) return;
      model.solo = readSolo(form);
      storage.setSolo(model.solo);
      // Play solo's own rules ("More rules" under its choices), not the create form's.
      enter(api.createSolo, { name: currentName(), ...model.solo }, "solo");
    },
    "submit:create": (form) => {
      if (!checkFields(form, "new")) return;
      rememberForm();
      enter(api.createRoom, { name: currentName(), ...model.settings }, "create");
    },
    "submit:join": async (form) => {
      const typed = form.elements.namedItem("join-code").value;
      const code = joinCode(typed);
      if (!code) return;
      if (/[/:]/.test(code)) {
        model.joinError = "That link has no room code in it: it should end in /r/ and the code.";
        showJoinError();
        return;
      }
      // A mistyped code is said here, next to what was typed, not on a page of its own.
      try {
        await api.getRoom(code);
      } catch (err) {
        if (err.status === 404) {
          model.joinError = `There is no room with the code ${code}. Check it with whoever sent it.`;
          showJoinError();
          return;
        }
        // No answer at all: the room page could not load either (the browser would show its
        // own error page), so say it here and stay.
        if (err.status === 0) {
          model.joinError = err.message;
          showJoinError();
          return;
        }
        // Anything else (busy): the room page explains it and retries.
      }
      location.assign(`/r/${encodeURIComponent(code)}`);
    },
  });
  trackDirty(main);
  wireCustomTarget(main);
  // Only the summary line changes: re-rendering here (on blur) could swallow a click.
  const showSoloSummary = (solo) => {
    const summary = main.querySelector("#solo-summary");
    const text = settingsSummary(solo);
    if (summary && summary.textContent !== text) summary.textContent = text;
  };
  // Each form remembers its own choices for the next visit.
  main.addEventListener("change", (event) => {
    if (event.target.closest("form[data-form='create']")) rememberForm();
    const soloForm = event.target.closest("form[data-form='solo']");
    if (soloForm) {
      model.solo = readSolo(soloForm);
      if (!Object.keys(settingsErrors(soloForm, { prefix: "solo" })).length) storage.setSolo(model.solo);
      showSoloSummary(model.solo);
    }
    if (event.target.id === "player-name") currentName();
  });
  main.addEventListener("input", (event) => {
    // The summary follows a custom target as it is typed (stored on change, above); the model
    // too, so a refresh of the public rooms does not draw the summary stale. This runs after
    // wireCustomTarget has picked "Other" for what is typed.
    const soloForm = event.target.closest("form[data-form='solo']");
    if (soloForm) {
      model.solo = readSolo(soloForm);
      showSoloSummary(model.solo);
    }
    // A field's message goes once the field is being changed (checked again on submit).
    if (model.fieldErrors && model.fieldErrors[event.target.id]) {
      const id = event.target.id;
      model.fieldErrors = { ...model.fieldErrors };
      delete model.fieldErrors[id];
      const shown = main.querySelector(`[id='${id}-error']`);
      if (shown) shown.remove();
      event.target.removeAttribute("aria-invalid");
      const rest = (event.target.getAttribute("aria-describedby") || "").split(" ").filter((x) => x && x !== `${id}-error`);
      if (rest.length) event.target.setAttribute("aria-describedby", rest.join(" "));
      else event.target.removeAttribute("aria-describedby");
    }
    // The message about the last code tried goes once the code is being changed.
    if (event.target.id === "join-code" && model.joinError) {
      model.joinError = null;
      const shown = main.querySelector(".join-form .form-error");
      if (shown) shown.remove();
      event.target.removeAttribute("aria-invalid");
      event.target.removeAttribute("aria-describedby");
    }
  });

  document.title = "Spades";
  render();
  loadRooms();
  ensurePlayer().then((player) => {
    model.player = player;
    if (player) loadMyRooms();
  });
  setInterval(() => {
    loadRooms();
    loadMyRooms();
  }, ROOMS_REFRESH_MS);
}

// What a player typed or pasted into "Room code": the code itself, or the invite link
// (".../r/CODE"), whose code is taken. Codes are letters and digits only, so what people put
// between them when they read one out or copy it ("ZAP F9C", "zap-f9c", "ZAP·F9C") goes:
// spaces, hyphens and dashes, dots, underscores, middle dots; and a trailing slash.
const CODE_SEPARATORS = /[\s\-_.\u00b7\u2010-\u2015\u2022\u2212\u30fb]+/g;

export function joinCode(text) {
  const typed = text.trim();
  const linked = typed.match(/\/r\/([^/?#\s]+)/i);
  const code = (linked ? safeDecode(linked[1]) : typed).trim();
  // Something with "/" or ":" left in it is a link with no code: kept whole, for the message.
  return (/[/:]/.test(code) ? code : code.replace(CODE_SEPARATORS, "")).toUpperCase();
}

// decodeURIComponent, but a malformed escape ("%E0") is left as it is instead of throwing.
export function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
