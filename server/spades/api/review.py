"""What a game review needs beyond the record: the cards dealt in each hand.

A finished game's record holds the master seed, from which the engine derives each deal;
a browser cannot run that derivation, so the record served by the API also lists every
hand's dealt cards (`dealt`) and each hand's scored result (`history`). Records are served
only once the game is over, so nothing here is secret any more.
"""

from __future__ import annotations

from typing import Any

from spades.engine import errors
from spades.engine.cards import card_text, cards_of
from spades.engine.game import Game


def with_deals(record: dict[str, Any]) -> dict[str, Any]:
    """The record plus `dealt` (per hand: dealer and four hands of card codes) and `history`.

    A record that does not replay is returned as it is (the review then says it cannot show it).
    """
    try:
        game = Game.from_record({**record, "actions": []})
        dealt = [_deal(game)]
        for index, entry in enumerate(record.get("actions", [])):
            hand = game.hand_number
            try:
                game.apply(entry["seat"], entry["action"])
            except (errors.ActionError, KeyError, TypeError) as exc:
                raise errors.RecordError(f"action {index} refused: {exc}") from exc
            if game.hand_number != hand and game.phase != "over":
                dealt.append(_deal(game))
    except errors.RecordError:
        return record
    return {**record, "dealt": dealt, "history": game.history}


def _deal(game: Game) -> dict[str, Any]:
    return {
        "hand": game.hand_number,
        "dealer": game.dealer,
        "hands": [[card_text(c) for c in cards_of(mask)] for mask in game.dealt],
    }
