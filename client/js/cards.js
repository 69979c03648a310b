// Card and seat vocabulary: how a card code like "QS" is named, drawn and sorted.

export const SUITS = {
  S: { name: "Spades", symbol: "♠", red: false },
  H: { name: "Hearts", symbol: "♥", red: true },
  C: { name: "Clubs", symbol: "♣", red: false },
  D: { name: "Diamonds", symbol: "♦", red: true },
};

const RANK_NAMES = {
  2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight",
  9: "Nine", T: "Ten", J: "Jack", Q: "Queen", K: "King", A: "Ace",
};
const RANK_ORDER = "23456789TJQKA";
const SUIT_ORDER = "SHCD"; // spades first, then alternating colours

export const SEAT_NAMES = ["South", "West", "North", "East"];

// The top trumps of the house rules, above the ace of spades: the jokers of the `jokers` rule
// (the Big Joker, red, above the Little) and, under `deuces` (Deuce-Deuce), the 2 of diamonds
// ("DD") above the 2 of spades ("DS"). All follow suit as spades.
const TOP_TRUMPS = {
  BJ: { name: "Big Joker", label: "BJ", symbol: "★", red: true, value: 16, joker: true },
  LJ: { name: "Little Joker", label: "LJ", symbol: "★", red: false, value: 15, joker: true },
  DD: { name: "Deuce of Diamonds", label: "2", symbol: SUITS.D.symbol, red: true, value: 14, face: "D" },
  DS: { name: "Deuce of Spades", label: "2", symbol: SUITS.S.symbol, red: false, value: 13, face: "S" },
};

/** The suit a card follows as: a top trump's is spades. */
export const suitOf = (code) => (TOP_TRUMPS[code] ? "S" : code[1]);
/** A card's height within its suit: 2 = 0 .. ace = 12, then DS 13, DD 14, LJ 15, BJ 16. */
export const rankValue = (code) => (TOP_TRUMPS[code] ? TOP_TRUMPS[code].value : RANK_ORDER.indexOf(code[0]));

export function parseCard(code) {
  const top = TOP_TRUMPS[code];
  if (top) {
    // `suit` is the suit it follows as; `face` the suit drawn (a deuce keeps its own colour).
    return { code, rank: code, suit: "S", face: top.face || null, label: top.label, symbol: top.symbol, red: top.red, name: top.name, joker: Boolean(top.joker), trump: true };
  }
  const rank = code[0];
  const suit = code[1];
  return {
    code,
    rank,
    suit,
    face: suit,
    label: rank === "T" ? "10" : rank,
    symbol: SUITS[suit].symbol,
    red: SUITS[suit].red,
    name: `${RANK_NAMES[rank]} of ${SUITS[suit].name}`,
  };
}

/** The classes of a card's face: its colour, its suit's (four-colour deck), joker, trump. */
export function faceClasses(card) {
  return [card.red ? "red" : "black", card.joker ? "joker" : `suit-${card.face}`, card.trump && !card.joker ? "top-trump" : null];
}

export function cardName(code) {
  return parseCard(code).name;
}

/** The top trumps and spades, hearts, clubs, diamonds; high to low inside a suit. */
export function sortHand(codes) {
  return [...codes].sort((a, b) => {
    const bySuit = SUIT_ORDER.indexOf(suitOf(a)) - SUIT_ORDER.indexOf(suitOf(b));
    return bySuit || rankValue(b) - rankValue(a);
  });
}

/** "Nil", "Blind nil" or the number, for a bid as the engine writes it. */
export function bidText(bid) {
  if (bid === null || bid === undefined) return "";
  if (bid === "nil" || bid === 0) return "Nil";
  if (bid === "blind nil") return "Blind nil";
  if (typeof bid === "string" && bid.startsWith("blind ")) return `Blind ${bid.slice(6)}`;
  return String(bid);
}

/** Where a seat sits on screen, seen from `me`: bottom, left, top, right (clockwise). */
export function placeOf(seat, me) {
  return ["bottom", "left", "top", "right"][(seat - (me ?? 0) + 4) % 4];
}
