// The chat panel: messages as plain text, and a box to send one. Another's message has a Hide
// button (this browser hides that name's chat in the room, kept in localStorage) and a Report
// button; reporting one shows a small form for the reason under the log.

import { h } from "../dom.js";
import { CHAT_LENGTH } from "../messages.js";

export function chatPanel(chat, { canSend, extra = null, you = null, reporting = null, hidden = [] }) {
  return h("section", { class: "chat card-panel", "aria-labelledby": "chat-title" },
    h("h2", { id: "chat-title", class: "panel-title" }, "Chat"),
    h("ol", { class: "chat-log", "data-key": "chat-log", "data-keep-scroll": "1", "aria-label": "Chat messages", tabindex: "0" },
      chat.length === 0 ? h("li", { class: "muted small" }, "No messages yet.") : null,
      chat.map((m) => message(m, you, hidden))),
    reporting ? reportForm(reporting) : null,
    h("form", { class: "chat-form inline", "data-form": "chat" },
      h("label", { class: "sr-only", for: "chat-input" }, "Message"),
      h("input", { id: "chat-input", name: "chat-input", maxlength: CHAT_LENGTH, autocomplete: "off", placeholder: canSend ? "Say something…" : "Connecting…", "data-key": "chat-input" }),
      h("button", { type: "submit", class: "btn small" }, "Send")),
    extra);
}

function reportForm(reporting) {
  return h("form", { class: "report-form", "data-form": "report", "aria-label": "Report a message" },
    h("p", { class: "small" }, "Report ", h("strong", {}, reporting.name || "this player"), "'s message to the administrators."),
    h("label", { for: "report-reason" }, "Why?"),
    h("input", { id: "report-reason", name: "report-reason", maxlength: "500", required: "required", autocomplete: "off", "data-key": "report-reason" }),
    h("button", { type: "submit", class: "btn small danger" }, "Send report"),
    h("button", { type: "button", class: "btn small ghost", "data-action": "cancel-report" }, "Cancel"));
}

function message(m, you, hidden) {
  const spectator = m.seat === null || m.seat === undefined;
  const others = m.at && (spectator || m.seat !== you);
  if (others && m.name && hidden.includes(m.name)) {
    return h("li", { class: "muted small" }, `${m.name}: hidden `,
      h("button", { type: "button", class: "report", "data-action": "show-chat", "data-name": m.name, "aria-label": `Show ${m.name}'s messages` }, "Show"));
  }
  return h("li", { class: spectator ? "spectator" : null },
    m.name ? h("strong", {}, m.name, ": ") : null,
    h("span", {}, m.text),
    others && m.name
      ? h("button", { type: "button", class: "report", "data-action": "hide-chat", "data-name": m.name, "aria-label": `Hide ${m.name}'s messages`, title: "Hide this player's messages (for you)" }, "Hide")
      : null,
    others
      ? h("button", { type: "button", class: "report", "data-action": "report-chat", "data-at": String(m.at), "data-seat": spectator ? "" : String(m.seat), "aria-label": `Report ${m.name || "this"} message`, title: "Report this message" }, "Report")
      : null);
}
