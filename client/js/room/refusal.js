// Why a card of your hand cannot be played now, in words: said by the hand, read out, and
// the card gives a short shake (none under prefers-reduced-motion).

import { SUITS, cardName, suitOf } from "../cards.js";

/** The reason `card` is not a move now, from the view the page holds. */
export function refusalReason(state, card) {
  const { room, view } = state;
  if (!view || !room || room.you === null) return "You are watching: you have no cards to play.";
  if (view.phase === "bidding") return "Bidding comes first: the cards are played once everyone has bid.";
  if (view.phase !== "playing") return "The hand is over.";
  if (room.seats[room.you].away) return "A bot is playing for you: press I'm back first.";
  if (state.link && state.link.state !== "open") return "Waiting for the connection: try again when it is back.";
  if (view.to_act !== room.you) return "It is not your turn yet.";
  const trick = view.current_trick && view.current_trick.cards.length ? view.current_trick.cards : [];
  const hand = view.hand || [];
  if (trick.length) {
    const led = suitOf(trick[0].card);
    if (suitOf(card) !== led && hand.some((c) => suitOf(c) === led)) {
      return `You must follow suit: ${SUITS[led].name} were led, and you have ${SUITS[led].name.toLowerCase()}.`;
    }
  } else if (suitOf(card) === "S" && !view.spades_broken && hand.some((c) => suitOf(c) !== "S")) {
    return "Spades are not broken yet: lead another suit.";
  }
  return `The ${cardName(card)} cannot be played now.`;
}

/** A short shake of the card (a class the stylesheet animates, taken off after). */
export function shake(button) {
  if (!button) return;
  button.classList.remove("shake");
  void button.offsetWidth; // restart the animation
  button.classList.add("shake");
  setTimeout(() => button.classList.remove("shake"), 500);
}
