// The room before the first game: four seats, invite link, host controls, chat.

import { h } from "../dom.js";
import { SEAT_NAMES, placeOf } from "../cards.js";
import { seatName } from "../state.js";
import { settingsFields, settingsSummary, BOT_LEVELS } from "./settings.js";
import { chatPanel } from "./chat.js";
import { countdown, ratingTag } from "./common.js";
import { pastGames } from "./sheets.js";
import { houseRulesBlock } from "./rules.js";
import { NAME_LENGTH } from "../messages.js";

const TEAM_NAMES = ["Team 1", "Team 2"];

// In partnership mode: who plays with whom (South & North against West & East).
function teams(room) {
  if (room.settings.mode !== "partnership") return null;
  const name = (seat) => (room.seats[seat].kind === "empty" ? `${SEAT_NAMES[seat]} (empty)` : seatName(room, seat)) + (room.you === seat ? " (you)" : "");
  return h("ul", { class: "teams", "aria-label": "Teams" },
    [0, 1].map((team) => h("li", { class: `team-${team}` },
      h("strong", {}, `${TEAM_NAMES[team]}: `), `${name(team)} & ${name(team + 2)}`)));
}

function marks(room, info) {
  const out = [];
  out.push(ratingTag(info)); // a rated room's players
  if (info.seat === room.host_seat) out.push(h("span", { class: "tag host" }, "Host"));
  if (info.kind === "bot") {
    const level = BOT_LEVELS.find(([v]) => v === info.bot_level);
    out.push(h("span", { class: "tag bot" }, `Bot${level ? ` · ${level[1]}` : ""}`));
  }
  if (info.kind === "human") {
    if (info.away) out.push(h("span", { class: "tag away" }, "Away"));
    else out.push(h("span", { class: ["tag", info.connected ? "online" : "offline"] }, info.connected ? "Connected" : "Offline"));
  }
  return out;
}

function seatCard(state, room, info, me) {
  const isHost = room.you !== null && room.you === room.host_seat;
  const mine = room.you === info.seat;
  const where = SEAT_NAMES[info.seat];
  const controls = [];
  if (room.you === null && info.kind === "empty") {
    controls.push(h("button", { type: "button", class: "btn primary small", "data-action": "sit", "data-seat": String(info.seat), "aria-label": `Sit here, in the ${where} seat`, "data-key": `sit-${info.seat}` }, "Sit here"));
  }
  if (isHost && !mine && state.confirmBot === info.seat && info.kind === "human") {
    const to = state.confirmTo === "empty" ? "empty" : "bot";
    const who = seatName(room, info.seat);
    const question = to === "bot" ? `Replace ${who} with a bot?` : `Free ${who}'s seat?`;
    controls.push(h("div", { class: "confirm-bot", role: "group", "aria-label": question },
      h("p", { class: "small" }, `${question} They lose this seat${to === "empty" ? " and can only watch" : ""}, and are told so.`),
      h("button", { type: "button", class: "btn small danger", "data-action": "set-seat", "data-seat": String(info.seat), "data-to": to, "data-confirmed": "1", "data-key": `confirm-${to}-${info.seat}` }, to === "bot" ? "Yes, seat a bot" : "Yes, free the seat"),
      h("button", { type: "button", class: "btn small ghost", "data-action": "cancel-bot", "data-key": `cancel-bot-${info.seat}` }, "Cancel")));
  } else if (isHost && !mine) {
    if (info.kind !== "bot") {
      controls.push(h("button", { type: "button", class: "btn small", "data-action": "set-seat", "data-seat": String(info.seat), "data-to": "bot", "aria-label": `Seat a bot in the ${where} seat`, "data-key": `bot-${info.seat}` }, "Seat a bot"));
    }
    if (info.kind !== "empty") {
      controls.push(h("button", { type: "button", class: "btn small ghost", "data-action": "set-seat", "data-seat": String(info.seat), "data-to": "empty", "aria-label": `Free the ${where} seat`, "data-key": `free-${info.seat}` }, "Free seat"));
    }
  }
  if (mine && !isHost) {
    controls.push(h("button", { type: "button", class: "btn small ghost", "data-action": "stand", "data-key": "stand" }, "Leave seat"));
  }
  const partnership = room.settings.mode === "partnership";
  const team = info.seat % 2;
  return h("li", { class: ["lobby-seat", `place-${placeOf(info.seat, me)}`, info.kind, mine ? "mine" : null, partnership ? `team-${team}` : null], "aria-label": `${where} seat${partnership ? `, ${TEAM_NAMES[team]}` : ""}` },
    h("div", { class: "seat-where muted small" }, where, partnership ? h("span", { class: `tag team-tag team-${team}` }, TEAM_NAMES[team]) : null),
    h("div", { class: "seat-name" },
      info.kind === "empty" ? h("span", { class: "muted" }, "Empty seat") : h("span", { class: "name", title: seatName(room, info.seat) }, seatName(room, info.seat)),
      mine ? h("span", { class: "you" }, " (you)") : null),
    h("div", { class: "tags" }, marks(room, info)),
    controls.length ? h("div", { class: "seat-controls" }, controls) : null);
}

export function renderLobby(state, { name }) {
  const room = state.room;
  const me = room.you;
  const isHost = me !== null && me === room.host_seat;
  const seated = room.seats.filter((s) => s.kind !== "empty").length;
  // invite_url is relative unless the server has SPADES_PUBLIC_URL: complete it from our own origin.
  const invite = new URL(room.invite_url || `/r/${room.code}`, location.origin).href;
  return h("div", { class: "lobby" },
    h("section", { class: "card-panel lobby-main", "aria-labelledby": "lobby-title" },
      h("div", { class: "panel-head" },
        h("h1", { id: "lobby-title" }, "Room ", h("span", { class: "code" }, room.code)),
        h("span", { class: "badge" }, room.settings.public ? "Public" : "Private")),
      h("p", { class: "muted" }, settingsSummary(room.settings)),
      houseRulesBlock(room.settings),
      h("div", { class: "invite inline" },
        h("label", { class: "sr-only", for: "invite-link" }, "Invite link"),
        h("input", { id: "invite-link", readonly: true, value: invite, "data-key": "invite-link" }),
        h("button", { type: "button", class: "btn", "data-action": "copy-invite", "data-key": "copy-invite" }, state.copied ? "Copied!" : "Copy invite link")),
      me === null && room.seats.some((s) => s.kind === "empty")
        ? h("div", { class: "field sit-name" },
          h("label", { for: "sit-name" }, "Your name"),
          h("input", { id: "sit-name", maxlength: NAME_LENGTH, value: name, placeholder: "Player", "data-key": "sit-name", autocomplete: "nickname" }),
          h("p", { class: "muted small" }, "Pick an empty seat to join the table."))
        : null,
      me === null && !room.seats.some((s) => s.kind === "empty")
        ? h("p", { class: "turn-alert room-full", role: "status" }, "This room is full: you can watch the game, but every seat is taken.")
        : null,
      teams(room),
      h("ol", { class: "lobby-table", "aria-label": "Seats" },
        room.seats.map((info) => seatCard(state, room, info, me ?? 0)),
        h("li", { class: "lobby-felt", "aria-hidden": "true" }, h("span", {}, "♠"))),
      h("div", { class: "lobby-actions" },
        isHost
          ? [
            h("button", { type: "button", class: "btn primary big", "data-action": "start", "data-key": "start" }, "Start game"),
            h("p", { class: "muted small" }, seated < 4 ? `Bots will take the ${4 - seated} empty ${4 - seated === 1 ? "seat" : "seats"}.` : "Everyone is seated."),
            // A rating is earned by four people: started with a bot, the room is not rated.
            room.settings.rated && room.seats.some((s) => s.kind !== "human")
              ? h("p", { class: "muted small rated-note" }, "With a bot at the table this game will not be rated.") : null,
          ]
          : waitingNote(room, me)),
      isHost
        ? h("details", { class: "room-settings", "data-key": "room-settings", "data-keep-open": "" },
          h("summary", {}, "Room settings"),
          h("form", { "data-form": "settings", novalidate: true },
            settingsFields(room.settings, { prefix: "room", includePublic: true, errors: state.settingsErrors }),
            h("button", { type: "submit", class: "btn" }, "Save settings")))
        : null,
      pastGames(state)),
    chatPanel(state.chat, { canSend: state.link.state === "open", you: state.room ? state.room.you : null, reporting: state.reporting, hidden: state.hidden }));
}

// What the others wait for: the host to start, or, while the host is offline, the moment
// the host's role passes to a player who is here (the server hands it over then).
function waitingNote(room, me) {
  const host = room.host_seat !== null ? room.seats[room.host_seat] : null;
  if (host && host.kind === "human" && !host.connected && room.host_back_by) {
    return h("p", { class: "muted host-away" },
      `${host.name || "The host"} (the host) is offline. If they are not back in `,
      countdown(room.host_back_by, "Time until the host's role passes on", { kind: "host" }),
      me === null ? ", a player here becomes host and can start the game." : ", you or another player here becomes host and can start the game.");
  }
  if (me !== null) return h("p", { class: "muted" }, "Waiting for the host to start the game…");
  const free = room.seats.some((seat) => seat.kind === "empty");
  return h("p", { class: "muted" }, free ? "Take a free seat to play, or stay and watch: the game begins when the host starts it." : "You are watching: the game begins when the host starts it.");
}
