// Pieces shared by the room screens: cards, the top bar, the connection banner, toasts.

import { h } from "../dom.js";
import { faceClasses, parseCard } from "../cards.js";
import { CloseCode } from "../codes.js";

/** A card face (not interactive), e.g. in the trick. */
export function cardFace(code, attrs = {}) {
  const card = parseCard(code);
  return h("span", { ...attrs, class: ["card", ...faceClasses(card), attrs.class], "data-card": code },
    h("span", { class: "corner", "aria-hidden": "true" }, h("span", { class: "rank" }, card.label), h("span", { class: "pip" }, card.symbol)),
    h("span", { class: "center-pip", "aria-hidden": "true" }, card.symbol),
    h("span", { class: "sr-only" }, card.name));
}

/** A card in the player's hand: a button named like "Queen of Spades". */
export function cardButton(code, { legal, active, hinted, index, rover = true }) {
  const card = parseCard(code);
  const playable = active && legal;
  return h("button", {
    type: "button",
    class: ["card", "in-hand", ...faceClasses(card), active ? (legal ? "legal" : "dimmed") : null, hinted ? "hinted" : null],
    "aria-disabled": playable ? null : "true",
    "data-action": "play",
    "data-card": code,
    "data-key": `card-${code}`,
    // The hand is one Tab stop (roving tabindex): the arrows move inside it.
    tabindex: rover ? "0" : "-1",
    style: `--i:${index}`,
  },
  h("span", { class: "corner", "aria-hidden": "true" }, h("span", { class: "rank" }, card.label), h("span", { class: "pip" }, card.symbol)),
  h("span", { class: "center-pip", "aria-hidden": "true" }, card.symbol),
  // The name comes from this text (not aria-label), so it never disagrees with what shows.
  h("span", { class: "sr-only" }, card.name),
  hinted ? h("span", { class: "hint-badge", "aria-hidden": "true" }, "Hint") : null);
}

export function cardBack(attrs = {}) {
  return h("span", { ...attrs, class: ["card", "back", attrs.class], "aria-hidden": "true" });
}

export function formatClock(ms) {
  if (ms === null || ms === undefined) return "";
  const total = Math.ceil(ms / 1000);
  const m = Math.floor(total / 60);
  const sec = String(total % 60).padStart(2, "0");
  return m >= 60 ? `${Math.floor(m / 60)}:${String(m % 60).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** A countdown the ticker updates in place every quarter second. */
export function countdown(deadline, label, { kind = "turn" } = {}) {
  if (!deadline) return null;
  return h("span", { class: ["countdown", kind], "data-deadline": String(deadline), "data-kind": kind, role: "timer", "aria-label": label }, "");
}

/** The top bar. `guardHome`: the logo asks before leaving (a game of yours is being played). */
export function topbar({ title, code, right, guardHome = false }) {
  return h("div", { class: "topbar-inner" },
    h("a", { class: "brand", href: "/", "aria-label": "Spades home", "data-action": guardHome ? "leave-home" : null, "aria-haspopup": guardHome ? "dialog" : null }, h("span", { class: "brand-pip", "aria-hidden": "true" }, "♠"), h("span", { class: "brand-word" }, " Spades")),
    title ? h("span", { class: "topbar-title" }, title) : null,
    code ? h("span", { class: "room-code" }, "Room ", h("strong", {}, code)) : null,
    h("div", { class: "topbar-right" }, right));
}

export function banner(link) {
  if (!link || link.state === "open") return null;
  if (link.state === "closed") {
    return h("div", { class: "banner bad" },
      h("span", {}, link.reason || "This room is closed."),
      link.code === CloseCode.REPLACED ? h("button", { type: "button", class: "btn small", "data-action": "reconnect" }, "Play in this tab") : null,
      h("a", { class: "btn small", href: "/" }, "Back to home"));
  }
  if (link.state === "connecting" && !link.attempt) return null;
  const text = link.state === "connecting" ? "Reconnecting…" : "Connection lost. Reconnecting";
  return h("div", { class: "banner" },
    h("span", { class: "spinner", "aria-hidden": "true" }),
    h("span", {}, text, link.state === "down" && link.retryAt ? h("span", { "data-deadline": String(link.retryAt), "data-kind": "retry", class: "retry-in", "aria-hidden": "true" }) : null),
    h("button", { type: "button", class: "btn small", "data-action": "reconnect" }, "Reconnect now"));
}

// Your seat is played by the bot (away: gone, or your time ran out twice in a row) until
// you take it back; nothing else would tell you why your turns pass without you.
export function awayNotice(state, key = "back") {
  const { room, view } = state;
  const me = room.you;
  if (me === null || view.phase === "over" || !room.seats[me].away) return null;
  return h("div", { class: "turn-alert away-alert", role: "status" },
    h("span", {}, "A bot is playing for you: your time ran out, or you were away."),
    h("button", { type: "button", class: "btn primary small", "data-action": "back", "data-key": key }, "I'm back"));
}

const PROVISIONAL = "provisional: fewer than 10 rated games";

/** A rated room's seat: its player's rating, "★ 1510" ("★ 1000?" while provisional). */
export function ratingTag(info) {
  if (!info || info.rating === null || info.rating === undefined) return null;
  const words = `Rating ${info.rating}${info.provisional ? `, ${PROVISIONAL}` : ""}`;
  return h("span", { class: ["tag", "rating", info.provisional ? "provisional" : null], title: words },
    h("span", { "aria-hidden": "true" }, `★ ${info.rating}${info.provisional ? "?" : ""}`),
    h("span", { class: "sr-only" }, words));
}

/** A rating's change by one game: "1510 → 1523 (+13)". */
export function ratingChangeText(before, after) {
  const diff = after - before;
  return `${before} → ${after} (${diff < 0 ? "−" : "+"}${Math.abs(diff)})`;
}
