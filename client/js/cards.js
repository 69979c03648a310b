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

// The jokers of the `jokers` rule: the highest trumps, the Big Joker (red) above the Little.
const JOKERS = {
  BJ: { name: "Big Joker", label: "BJ", red: true, value: 14 },
  LJ: { name: "Little Joker", label: "LJ", red: false, value: 13 },
};

/** The suit a card follows as: a joker's is spades. */
export const suitOf = (code) => (JOKERS[code] ? "S" : code[1]);
/** A card's height within its suit: 2 = 0 .. ace = 12, Little Joker 13, Big Joker 14. */
export const rankValue = (code) => (JOKERS[code] ? JOKERS[code].value : RANK_ORDER.indexOf(code[0]));

export function parseCard(code) {
  const joker = JOKERS[code];
  if (joker) return { code, rank: code, suit: "S", label: joker.label, symbol: "★", red: joker.red, name: joker.name, joker: true };
  const rank = code[0];
  const suit = code[1];
  return {
    code,
    rank,
    suit,
    label: rank === "T" ? "10" : rank,
    symbol: SUITS[suit].symbol,
    red: SUITS[suit].red,
    name: `${RANK_NAMES[rank]} of ${SUITS[suit].name}`,
  };
}

export function cardName(code) {
  return parseCard(code).name;
}

/** Jokers and spades, hearts, clubs, diamonds; high to low inside a suit. */
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
