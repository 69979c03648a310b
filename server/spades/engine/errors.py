"""One error class per kind of refused action; each names its reason in `code` and text."""

from __future__ import annotations


class ActionError(Exception):
    """An action the engine refuses. The game is unchanged when this is raised."""

    code = "illegal_action"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MalformedAction(ActionError):
    code = "malformed_action"


class GameOver(ActionError):
    code = "game_over"


class NotYourTurn(ActionError):
    code = "not_your_turn"


class WrongPhase(ActionError):
    code = "wrong_phase"


class BidOutOfRange(ActionError):
    code = "bid_out_of_range"


class NilNotAllowed(ActionError):
    code = "nil_not_allowed"


class BlindNilNotAllowed(ActionError):
    code = "blind_nil_not_allowed"


class MustLookFirst(ActionError):
    code = "must_look_first"


class NothingToLook(ActionError):
    code = "nothing_to_look"


class CardNotInHand(ActionError):
    code = "card_not_in_hand"


class MustFollowSuit(ActionError):
    code = "must_follow_suit"


class SpadesNotBroken(ActionError):
    code = "spades_not_broken"


class RecordError(ValueError):
    """A record (hand or game) that cannot be read or replayed."""
