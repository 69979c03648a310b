// The table's options dialog, and quick chat: its buttons (players only) and the phrase
// shown by a player's plate.

import { h } from "../dom.js";
import { dialog } from "./sheets.js";

// The server's phrase ids (rooms/chat.py) in words; an emote has its picture and a name.
export const QUICK = {
  nice: ["Nice!"],
  good_game: ["Good game"],
  oops: ["Oops"],
  thinking: ["Thinking…"],
  well_played: ["Well played"],
  thanks: ["Thanks"],
  sorry: ["Sorry"],
  hurry: ["Hurry up?"],
  thumbs_up: ["👍", "Thumbs up"],
  laugh: ["😄", "Laughing"],
  wow: ["😮", "Wow"],
  sweat: ["😅", "Phew"],
};

/** A phrase in words (an emote's name). */
export const quickWords = (phrase) => (QUICK[phrase] ? QUICK[phrase][1] || QUICK[phrase][0] : phrase);

/** The quick chat buttons, for a seated player. */
export function quickBar() {
  return h("div", { class: "quick-bar", role: "group", "aria-label": "Quick chat" },
    Object.entries(QUICK).map(([id, [shown, name]]) => h("button", {
      type: "button", class: ["btn", "small", "quick", name ? "emote" : null], "data-action": "quick", "data-phrase": id,
      "data-key": `quick-${id}`, "aria-label": name || null, title: name || null,
    }, shown)));
}

/** What a player just said with quick chat, by their plate. */
export function quickBubble(entry) {
  if (!entry) return null;
  const [shown, name] = QUICK[entry.phrase] || [entry.phrase];
  return h("div", { class: "quick-bubble" }, h("span", { "aria-hidden": name ? "true" : null }, shown), name ? h("span", { class: "sr-only" }, name) : null);
}

const SWITCHES = [
  ["sound", "Sound", "a card played, your turn, a trick won"],
  ["vibrate", "Vibrate on your turn", "on phones that can"],
  ["motion", "Motion", "the deal, cards travelling to the trick and to its winner"],
  ["large", "Larger cards", null],
  ["fourColour", "Four-colour deck", "clubs green, diamonds blue"],
  ["autoPlay", "Play my last card for me", "when it is the only card left"],
  ["hideQuick", "Hide quick chat", "the phrases by the players' plates"],
];

/** The dialog: each switch applies at once and is remembered in this browser. */
export function optionsSheet(options) {
  return dialog("options-title", "options-sheet",
    h("h2", { id: "options-title", tabindex: "-1", "data-key": "options-title" }, "Table options"),
    h("p", { class: "muted small" }, "Kept in this browser. Motion stays off while your system asks for reduced motion."),
    h("div", { class: "option-list" },
      SWITCHES.map(([name, label, hint]) => h("label", { class: "check option", for: `opt-${name}` },
        h("input", { type: "checkbox", id: `opt-${name}`, "data-option": name, checked: Boolean(options[name]), "data-key": `opt-${name}` }),
        h("span", {}, label, hint ? h("span", { class: "muted small" }, ` (${hint})`) : null)))),
    h("div", { class: "sheet-actions" },
      h("button", { type: "button", class: "btn primary", "data-action": "close-options", "data-key": "close-options" }, "Close")));
}
