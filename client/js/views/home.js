// The home page: play solo, create a room, join by code, public rooms.

import { h } from "../dom.js";
import {
  describedBy, fieldError, readSoloRules, settingsFields, settingsSummary, soloDefaults, soloRuleFields, targetPresets, turnChoices,
  BOT_LEVELS, NAME_LENGTH, TARGET_LIMITS,
} from "./settings.js";

function publicRooms(rooms, loading, failed) {
  if (loading && !rooms) return h("p", { class: "muted" }, "Loading rooms…");
  // The last list we had may be out of date: said above it.
  if (failed) return [h("p", { class: "muted rooms-error" }, failed), rooms && rooms.length ? publicRooms(rooms, false, null) : null];
  if (!rooms || rooms.length === 0) {
    return h("p", { class: "muted" }, "No public room is waiting for players right now. Create one!");
  }
  return h("ul", { class: "room-list", "aria-label": "Public rooms" },
    rooms.map((room) => {
      const settings = room.settings || {};
      const open = Array.isArray(room.open_seats) ? room.open_seats.length : room.seats?.filter((seat) => seat.kind === "empty").length;
      const host = room.host ? `${room.host}'s room` : `Room ${room.code}`;
      return h("li", { class: "room-item" },
        h("div", {},
          h("strong", {}, host),
          h("div", { class: "muted small" }, settingsSummary({ rules: {}, ...settings }))),
        h("div", { class: "room-item-end" },
          open !== undefined ? h("span", { class: "badge" }, `${open} open ${open === 1 ? "seat" : "seats"}`) : null,
          h("a", { class: "btn small", href: `/r/${encodeURIComponent(room.code)}`, "aria-label": `Join room ${room.code}` }, "Join")));
    }));
}

// Play solo's own choices, remembered between visits (storage.getSolo) over the server's
// solo settings (soloDefaults), its own rule options too ("More rules"). `errors`: the
// message of each field refused, by its id.
function soloChoices(given, errors) {
  const solo = { ...soloDefaults(), ...given };
  const presets = targetPresets();
  const custom = !presets.includes(Number(solo.target)) || Boolean(errors && errors["solo-target-value"]);
  const chip = (name, value, checked, label) => h("label", { class: "chip", for: `${name}-${value}` },
    h("input", { type: "radio", id: `${name}-${value}`, name, value: String(value), checked, "data-key": `${name}-${value}` }),
    h("span", {}, label));
  return h("div", { class: "solo-choices" },
    h("fieldset", { class: "field" },
      h("legend", {}, "Solo game"),
      h("div", { class: "chips" },
        chip("solo-mode", "individual", solo.mode !== "partnership", "Individual"),
        chip("solo-mode", "partnership", solo.mode === "partnership", "Partners with a bot"))),
    h("fieldset", { class: "field" },
      h("legend", {}, "Solo target"),
      h("div", { class: "chips" },
        presets.map((t) => chip("solo-target", t, !custom && Number(solo.target) === t, String(t))),
        chip("solo-target", "custom", custom, "Other"),
        h("label", { class: "sr-only", for: "solo-target-value" }, "Other solo target"),
        h("input", {
          type: "number", id: "solo-target-value", name: "solo-target-value", class: "custom-target",
          min: TARGET_LIMITS.minimum, max: TARGET_LIMITS.maximum, inputmode: "numeric", placeholder: "e.g. 250",
          value: custom && Number.isFinite(Number(solo.target)) ? String(solo.target) : "", "data-key": "solo-target-value", "data-custom-for": "solo-target",
          "aria-invalid": errors && errors["solo-target-value"] ? "true" : null, "aria-describedby": describedBy("solo-target-value", null, errors),
        })),
      fieldError("solo-target-value", errors)),
    h("div", { class: "row2" },
      h("div", { class: "field" },
        h("label", { for: "solo-turn" }, "Solo turn timer"),
        h("select", { id: "solo-turn", name: "solo-turn", "data-key": "solo-turn" },
          turnChoices().map(([v, text]) => h("option", { value: String(v), selected: Number(solo.turn_seconds) === v }, text)))),
      h("div", { class: "field" },
        h("label", { for: "solo-bots" }, "Solo bot level"),
        h("select", { id: "solo-bots", name: "solo-bots", "data-key": "solo-bots" },
          BOT_LEVELS.map(([v, text]) => h("option", { value: v, selected: solo.bot_level === v }, text))))),
    soloRuleFields(solo.rules, errors),
    h("p", { class: "muted small", id: "solo-summary" }, settingsSummary({ ...solo, rules: solo.rules || {} })));
}

/** Read Play solo's choices back from its form. */
export function readSolo(form) {
  const defaults = soloDefaults();
  const picked = form.querySelector("input[name='solo-target']:checked");
  let target = picked ? picked.value : String(defaults.target);
  if (target === "custom") target = form.elements.namedItem("solo-target-value").value;
  return {
    mode: form.querySelector("input[name='solo-mode']:checked")?.value || defaults.mode,
    // Not a number (typed and cleared): null, refused by settingsErrors, never a default.
    target: Number.isFinite(Number.parseInt(target, 10)) ? Number.parseInt(target, 10) : null,
    turn_seconds: Number.parseInt(form.elements.namedItem("solo-turn").value, 10) || 0,
    bot_level: form.elements.namedItem("solo-bots").value,
    rules: readSoloRules(form),
  };
}

const STATUS_TEXT = { open: "Waiting to start", playing: "Game in progress" };

/** "Return to your game": each live room where this browser's player has a seat. */
function myRoomsSection(model) {
  const rooms = model.myRooms || [];
  if (!rooms.length) return null;
  return h("section", { class: "card-panel my-rooms", "aria-labelledby": "my-rooms-title" },
    h("h2", { id: "my-rooms-title" }, rooms.length === 1 ? "Your game" : "Your games in progress"),
    h("ul", { class: "room-list" }, rooms.map((room) => {
      const others = (room.seats || []).filter((s) => s.seat !== room.seat && s.kind !== "empty").map((s) => s.name).filter(Boolean);
      return h("li", { class: "room-item", "data-key": `my-room-${room.code}` },
        h("div", {},
          h("strong", {}, `Room ${room.code}`),
          h("div", { class: "muted small" }, [STATUS_TEXT[room.status] || room.status, others.length ? ` · with ${others.join(", ")}` : ""].join(""))),
        h("div", { class: "room-item-end" },
          h("a", { class: "btn primary small", href: `/r/${encodeURIComponent(room.code)}`, "data-key": `return-${room.code}`, "data-action": "return", "data-code": room.code }, "Return to your game")));
    })));
}

export function renderHome(model) {
  const { name, settings, rooms, roomsLoading, busy, error } = model;
  return [
    myRoomsSection(model),
    h("section", { class: "hero card-panel", "aria-labelledby": "solo-title" },
      h("h1", { id: "solo-title" }, "Spades"),
      h("p", { class: "lead" }, "Play against bots right away, or set up a table for friends."),
      // novalidate: our own message says what is wrong, in words, by the field.
      h("form", { class: "solo-form", "data-form": "solo", novalidate: true },
        h("div", { class: "field" },
          h("label", { for: "player-name" }, "Your name"),
          h("input", {
            id: "player-name", name: "player-name", maxlength: NAME_LENGTH, autocomplete: "nickname",
            placeholder: "Player", value: name, "data-key": "player-name",
          })),
        soloChoices(model.solo, model.fieldErrors),
        h("button", { type: "submit", class: "btn primary big", disabled: busy }, "Play solo")),
      error && error.form === "solo" ? h("p", { class: "form-error", role: "alert" }, error.text) : null),
    h("div", { class: "home-grid" },
      h("section", { class: "card-panel", "aria-labelledby": "create-title" },
        h("h2", { id: "create-title" }, "Create a room"),
        h("form", { "data-form": "create", class: "create-form", novalidate: true },
          settingsFields(settings, { prefix: "new", includePublic: true, includeRated: true, errors: model.fieldErrors }),
          h("button", { type: "submit", class: "btn primary", disabled: busy }, "Create room"),
          error && error.form === "create" ? h("p", { class: "form-error", role: "alert" }, error.text) : null)),
      h("div", { class: "stack" },
        h("section", { class: "card-panel", "aria-labelledby": "join-title" },
          h("h2", { id: "join-title" }, "Join a room"),
          h("form", { "data-form": "join", class: "join-form" },
            h("label", { for: "join-code" }, "Room code"),
            h("div", { class: "inline" },
              h("input", {
                id: "join-code", name: "join-code", required: true, autocomplete: "off",
                autocapitalize: "characters", spellcheck: "false", placeholder: "ABCD12", "data-key": "join-code",
                "aria-invalid": model.joinError ? "true" : null, "aria-describedby": model.joinError ? "join-error" : null,
              }),
              h("button", { type: "submit", class: "btn" }, "Join")),
            model.joinError ? h("p", { class: "form-error", id: "join-error", role: "alert" }, model.joinError) : null)),
        h("section", { class: "card-panel", "aria-labelledby": "rooms-title" },
          h("div", { class: "panel-head" },
            h("h2", { id: "rooms-title" }, "Public rooms"),
            h("button", { type: "button", class: "btn small ghost", "data-action": "refresh-rooms" }, "Refresh")),
          publicRooms(rooms, roomsLoading, model.roomsError)))),
    h("p", { class: "center muted small my-games-link" },
      model.player ? h("a", { href: `/#player/${encodeURIComponent(model.player.id)}` }, "Your finished games") : null,
      model.player ? " · " : null,
      h("a", { href: "/#leaderboard", "data-testid": "leaderboard-link" }, "Leaderboard")),
  ];
}
