"""Shared by the hidden-information tests of tests/rooms and tests/api: find card strings in
messages and rebuild each hand's deal from a finished game's record."""

from __future__ import annotations

import re
from typing import Any

from spades.engine import Game, card_text
from spades.engine.cards import cards_of

# (LJ, BJ: the `jokers` rule; DD, DS: `deuces`, Deuce-Deuce)
CARD = re.compile(r"^(?:(?:[2-9TJQKA]|10)[CDHS]|LJ|BJ|DD|DS)$")


def card_strings(message: Any) -> set[str]:
    """Every string in a message that reads as a card."""
    found: set[str] = set()
    stack = [message]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and CARD.match(item):
            found.add(item)
    return found


def deals_of(record: dict[str, Any]) -> dict[int, list[set[str]]]:
    """Each hand's deal (seat -> cards), rebuilt from the record's revealed master seed."""
    replay = Game(
        Game.from_record({**record, "actions": []}).rules,
        seed=record["seed"],
        first_dealer=record["first_dealer"],
    )
    deals: dict[int, list[set[str]]] = {}
    for entry in [*record["actions"], None]:
        deals.setdefault(
            replay.hand_number, [{card_text(c) for c in cards_of(m)} for m in replay.dealt]
        )
        if entry is not None:
            replay.apply(entry["seat"], entry["action"])
    return deals


def played(view: dict[str, Any]) -> set[str]:
    """The cards of this hand already on the table (public from then on)."""
    cards = {c["card"] for t in view["tricks"] for c in t["cards"]}
    if view["current_trick"]:
        cards |= {c["card"] for c in view["current_trick"]["cards"]}
    return cards


def current_hand_only(message: dict[str, Any]) -> dict[str, Any]:
    """The message without the previous hand's last trick (public: all of it was played)."""
    view = message.get("view") if message["type"] == "state" else None
    last = view and view.get("last_trick")
    if not last or last["hand"] == view["hand_number"]:
        return message
    assert len(last["cards"]) == 4 and last["hand"] == view["hand_number"] - 1
    return {**message, "view": {**view, "last_trick": None}}


def event_leaks(event: dict[str, Any], after: dict[str, Any], others: set[str]) -> set[str]:
    """Cards of `others` (the other seats' deals) that an `event` as sent shows, beyond those
    on the table once it is applied (`after`: the view the client then holds)."""
    assert event["type"] == "event"
    return (card_strings(event) & others) - played(after)
