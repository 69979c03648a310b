// The home page: play solo, create a room, join by code, public rooms.

import { h } from "../dom.js";
import { settingsFields, settingsSummary } from "./settings.js";

function publicRooms(rooms, loading) {
  if (loading && !rooms) return h("p", { class: "muted" }, "Loading rooms…");
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

export function renderHome(model) {
  const { name, settings, rooms, roomsLoading, busy, error } = model;
  return [
    h("section", { class: "hero card-panel", "aria-labelledby": "solo-title" },
      h("h1", { id: "solo-title" }, "Spades"),
      h("p", { class: "lead" }, "Play against bots right away, or set up a table for friends."),
      h("form", { class: "solo-form", "data-form": "solo" },
        h("div", { class: "field" },
          h("label", { for: "player-name" }, "Your name"),
          h("input", {
            id: "player-name", name: "player-name", maxlength: 24, autocomplete: "nickname",
            placeholder: "Player", value: name, "data-key": "player-name",
          })),
        h("button", { type: "submit", class: "btn primary big", disabled: busy }, "Play solo"),
        h("p", { class: "muted small", id: "solo-summary" }, "With your last settings: ", settingsSummary(settings))),
      error ? h("p", { class: "form-error", role: "alert" }, error) : null),
    h("div", { class: "home-grid" },
      h("section", { class: "card-panel", "aria-labelledby": "create-title" },
        h("h2", { id: "create-title" }, "Create a room"),
        h("form", { "data-form": "create", class: "create-form" },
          settingsFields(settings, { prefix: "new", includePublic: true }),
          h("button", { type: "submit", class: "btn primary", disabled: busy }, "Create room"))),
      h("div", { class: "stack" },
        h("section", { class: "card-panel", "aria-labelledby": "join-title" },
          h("h2", { id: "join-title" }, "Join a room"),
          h("form", { "data-form": "join", class: "join-form" },
            h("label", { for: "join-code" }, "Room code"),
            h("div", { class: "inline" },
              h("input", {
                id: "join-code", name: "join-code", required: true, autocomplete: "off",
                autocapitalize: "characters", spellcheck: "false", placeholder: "ABCD12", "data-key": "join-code",
              }),
              h("button", { type: "submit", class: "btn" }, "Join")))),
        h("section", { class: "card-panel", "aria-labelledby": "rooms-title" },
          h("div", { class: "panel-head" },
            h("h2", { id: "rooms-title" }, "Public rooms"),
            h("button", { type: "button", class: "btn small ghost", "data-action": "refresh-rooms" }, "Refresh")),
          publicRooms(rooms, roomsLoading)))),
  ];
}
