"""An independent reading of a game record: deals, tricks and scores worked out again from
the record alone, with none of the engine's scoring or trick code (docs/rules.md)."""

from __future__ import annotations

from typing import Any

from spades.engine.fast import deal_from_seed, hand_seed

SUITS = "CDHS"
RANKS = "23456789TJQKA"


JOKERS = {"LJ": 200, "BJ": 201}  # the highest trumps, the Big Joker above


def _suit(card: str) -> str:
    return "S" if card in JOKERS else card[1]


def _strength(card: str, led: str) -> int:
    if card in JOKERS:
        return JOKERS[card]
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
            # The jokers deck: 2C (0) and 2H (26) out, the jokers (52, 53) in, lowest first.
            deck = [c for c in range(54) if c not in (0, 26)] if rules["jokers"] else None
            masks = deal_from_seed(hand_seed(record["seed"], number), deck)
            dealt = [[SUITS_CARD[c] for c in range(54) if m >> c & 1] for m in masks]
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


SUITS_CARD = [RANKS[c % 13] + SUITS[c // 13] for c in range(52)] + ["LJ", "BJ"]


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
