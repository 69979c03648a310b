"""Records: a whole game's as a store keeps it (`game_record`), and hand records: one hand as
JSON (rules, dealer, scores, bags, hands, bids, plays), scored."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import errors
from .cards import CardParseError, parse_card
from .game import RECORD_FORMAT, Game
from .rules import Rules, RulesError


def game_record(
    rules: Rules | dict[str, Any] | None,
    seed: str,
    first_dealer: int,
    actions: Iterable[tuple[int | None, dict[str, Any]]],
) -> dict[str, Any]:
    """The game record (`Game.to_record()`'s format, `Game.from_record` replays it) of a
    game dealt from its seed alone and started at zero: what a log of its actions, with
    the game's rules, seed and first dealer, holds. `actions`: (seat, action) in order."""
    parsed = rules if isinstance(rules, Rules) else Rules.from_dict(rules)
    return {
        "format": RECORD_FORMAT,
        "rules": parsed.to_dict(),
        "seed": seed,
        "first_dealer": first_dealer,
        "deals": [],
        "scores": [0] * parsed.sides,
        "bags": [0] * parsed.sides,
        "actions": [{"seat": seat, "action": action} for seat, action in actions],
    }


class HandRecordError(errors.RecordError):
    """A hand record that breaks a rule: `index` counts bids then plays."""

    def __init__(self, index: int, seat: int | None, reason: str) -> None:
        super().__init__(reason)
        self.index = index
        self.seat = seat
        self.reason = reason


def load_hand(record: dict[str, Any]) -> Game:
    """Replay a hand record into a game. Raises `HandRecordError` or `RecordError`."""
    if not isinstance(record, dict):
        raise errors.RecordError("a hand record is a JSON object")
    try:
        rules = Rules.from_dict(record.get("rules"))
        dealer = record.get("dealer", 0)
        if isinstance(dealer, bool) or dealer not in range(4):
            raise errors.RecordError(f"dealer must be a seat 0..3, not {dealer!r}")
        hands = record["hands"]
        if not isinstance(hands, list) or len(hands) != 4:
            raise errors.RecordError("hands must be a list of four hands")
        parsed = [[parse_card(c) for c in hand] for hand in hands]
        game = Game.from_deal(
            rules,
            parsed,
            dealer,
            scores=record.get("scores"),
            bags=record.get("bags"),
            seed="hand-record",
        )
    except KeyError as exc:
        raise errors.RecordError(f"missing field {exc.args[0]!r}") from exc
    except (RulesError, CardParseError, TypeError) as exc:
        raise errors.RecordError(str(exc)) from exc
    except ValueError as exc:
        raise errors.RecordError(str(exc)) from exc

    bids = record.get("bids", [])
    plays = record.get("plays", [])
    if not isinstance(bids, list) or not isinstance(plays, list):
        raise errors.RecordError("bids and plays must be lists")
    for index, bid in enumerate(bids):
        seat = game.to_act
        if game.phase != "bidding" or seat is None:
            raise HandRecordError(index, None, "more than four bids")
        try:
            blind = isinstance(bid, str) and bid.strip().lower().replace("_", " ") == "blind nil"
            if not blind and game.blind_nil_open(seat):
                game.apply(seat, {"type": "look"})
            game.apply(seat, {"type": "bid", "bid": bid})
        except errors.ActionError as exc:
            raise HandRecordError(index, seat, str(exc)) from exc
    for offset, card in enumerate(plays):
        index = len(bids) + offset
        seat = game.to_act
        if game.hand_number > 1 or game.phase == "over":
            raise HandRecordError(index, None, "more than 52 plays")
        try:
            game.apply(seat, {"type": "play", "card": card})
        except errors.ActionError as exc:
            raise HandRecordError(index, seat, str(exc)) from exc
    return game


def score_record(record: dict[str, Any]) -> dict[str, Any]:
    """`spades score` output for one hand record (raises on a broken record)."""
    game = load_hand(record)
    complete = bool(game.history)
    if not complete:
        n = game.rules.sides
        return {
            "complete": False,
            "tricks": list(game.tricks_won),
            "points": [0] * n,
            "bags_added": [0] * n,
            "bag_penalty": [0] * n,
            "scores": list(game.scores),
            "bags": list(game.bags),
            "winner": None,
        }
    h = game.history[0]
    return {
        "complete": True,
        "tricks": h["tricks"],
        "points": h["points"],
        "bags_added": h["bags_added"],
        "bag_penalty": h["bag_penalty"],
        "scores": h["scores"],
        "bags": h["bags"],
        "winner": game.winner,
    }
