// The chat panel: messages as plain text, and a box to send one.

import { h } from "../dom.js";
import { CHAT_LENGTH } from "../messages.js";

export function chatPanel(chat, { canSend, extra = null }) {
  return h("section", { class: "chat card-panel", "aria-labelledby": "chat-title" },
    h("h2", { id: "chat-title", class: "panel-title" }, "Chat"),
    h("ol", { class: "chat-log", "data-key": "chat-log", "data-keep-scroll": "1", "aria-label": "Chat messages", tabindex: "0" },
      chat.length === 0 ? h("li", { class: "muted small" }, "No messages yet.") : null,
      chat.map((m) => h("li", { class: m.seat === null || m.seat === undefined ? "spectator" : null },
        m.name ? h("strong", {}, m.name, ": ") : null,
        h("span", {}, m.text)))),
    h("form", { class: "chat-form inline", "data-form": "chat" },
      h("label", { class: "sr-only", for: "chat-input" }, "Message"),
      h("input", { id: "chat-input", name: "chat-input", maxlength: CHAT_LENGTH, autocomplete: "off", placeholder: canSend ? "Say something…" : "Connecting…", "data-key": "chat-input" }),
      h("button", { type: "submit", class: "btn small" }, "Send")),
    extra);
}
