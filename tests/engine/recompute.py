"""An independent reading of a game record: deals, tricks and scores worked out again from
the record alone, with none of the engine's scoring or trick code (docs/rules.md)."""

from __future__ import annotations

from typing import Any

from spades.engine.fast import deal_from_seed, hand_seed

SUITS = "CDHS"
RANKS = "23456789TJQKA"


# The trumps above the ace of spades, lowest first: Deuce-Deuce's 2 of spades ("DS") and 2 of
# diamonds ("DD"), then the Little and the Big Joker. Each follows suit as a spade.
TOP_TRUMPS = {"DS": 198, "DD": 199, "LJ": 200, "BJ": 201}


def _suit(card: str) -> str:
    return "S" if card in TOP_TRUMPS else card[1]


def _strength(card: str, led: str) -> int:
    if card in TOP_TRUMPS:
        return TOP_TRUMPS[card]
    rank = RANKS.index(card[0])
    if card[1] == "S":
        return 100 + rank
    return rank if card[1] == led else -1


def _team(rules: dict[str, Any], seat: int) -> list[int]:
    if rules["mode"] == "partnership":
        return [seat % 2, seat % 2 + 2]
    return [seat]


def hands_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Per hand of the record: its bids (tricks, blind), the cards dealt and tricks taken."""
    rules = record["rules"]
    out: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    trick: list[tuple[int, str]] = []
    for entry in record["actions"]:
        seat, action = entry["seat"], entry["action"]
        if action["type"] != "bid" and action["type"] != "play":
            continue
        if current is None:
            number = len(out) + 1
            deck = deck_texts(rules)
            # The shuffle of positions 0..51, position k dealing the deck's k-th card.
            masks = deal_from_seed(hand_seed(record["seed"], number))
            dealt = [[deck[k] for k in range(52) if m >> k & 1] for m in masks]
            current = {"bids": [None] * 4, "blind": [False] * 4, "tricks": [0] * 4, "dealt": dealt}
            current["plays"] = 0
        if action["type"] == "bid":
            bid = action["bid"]  # 3, "nil", "blind nil" or "blind 6"
            words = bid.split() if isinstance(bid, str) else [str(bid)]
            current["bids"][seat] = int(words[-1]) if words[-1].isdigit() else 0
            current["blind"][seat] = words[0] == "blind"
            continue
        assert action["card"] in current["dealt"][seat], "a card played that was not dealt"
        trick.append((seat, action["card"]))
        current["plays"] += 1
        if len(trick) == 4:
            led = _suit(trick[0][1])
            winner = max(trick, key=lambda p: _strength(p[1], led))[0]
            current["tricks"][winner] += 1
            trick = []
        if current["plays"] == 52:
            out.append(current)
            current = None
    return out


STANDARD = [RANKS[c % 13] + SUITS[c // 13] for c in range(52)]  # clubs 2 .. spades A


def deck_texts(rules: dict[str, Any]) -> list[str]:
    """The 52 cards of the rules' deck, lowest first (docs/rules.md, "Jokers")."""
    if not rules.get("jokers"):
        return STANDARD
    if rules.get("deuces"):
        out = ("2C", "2H", "2D", "2S")
        return [c for c in STANDARD if c not in out] + ["DS", "DD", "LJ", "BJ"]
    return [c for c in STANDARD if c not in ("2C", "2H")] + ["LJ", "BJ"]


def scores_of(record: dict[str, Any]) -> list[list[int]]:
    """The scores after each finished hand, worked out from the record."""
    rules = record["rules"]
    sides = 2 if rules["mode"] == "partnership" else 4
    scores = list(record["scores"])
    bags = list(record["bags"])
    out = []
    for hand in hands_of(record):
        for side in range(sides):
            seats = _team(rules, side)
            gain, new_bags, bid, took = 0, 0, 0, 0
            for s in seats:
                if hand["bids"][s] == 0:
                    value = rules["blind_nil_value"] if hand["blind"][s] else rules["nil_value"]
                    gain += value if hand["tricks"][s] == 0 else -value
                    if rules["nil_tricks_count_for_partner"]:
                        took += hand["tricks"][s]
                    else:
                        new_bags += hand["tricks"][s]
                else:
                    bid += hand["bids"][s]
                    took += hand["tricks"][s]
            worth = 10 * bid
            if rules["big_bid"] and bid >= rules["big_bid"]:
                worth = rules["big_bid_value"]
            if any(hand["blind"][s] and hand["bids"][s] for s in seats):
                worth *= 2
            if bid == 0:
                new_bags += took
            elif took >= bid:
                gain += worth
                new_bags += took - bid
                if sum(hand["tricks"][s] for s in seats) == 13:
                    gain += rules["moon_bonus"]
            else:
                gain -= worth
            gain += new_bags * rules["bag_value"]
            bags[side] += new_bags
            while rules["bag_limit"] and bags[side] >= rules["bag_limit"]:
                bags[side] -= rules["bag_limit"]
                gain -= rules["bag_penalty"]
            scores[side] += gain
        out.append(list(scores))
    return out
