"""One error class per kind of refused action; each names its reason in `code` and text."""

from __future__ import annotations

from spades.codes import ErrorCode


class ActionError(Exception):
    """An action the engine refuses. The game is unchanged when this is raised."""

    code: ErrorCode = ErrorCode.ILLEGAL_ACTION

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MalformedAction(ActionError):
    code = ErrorCode.MALFORMED_ACTION


class GameOver(ActionError):
    code = ErrorCode.GAME_OVER


class NotYourTurn(ActionError):
    code = ErrorCode.NOT_YOUR_TURN


class WrongPhase(ActionError):
    code = ErrorCode.WRONG_PHASE


class BidOutOfRange(ActionError):
    code = ErrorCode.BID_OUT_OF_RANGE


class NilNotAllowed(ActionError):
    code = ErrorCode.NIL_NOT_ALLOWED


class BlindNilNotAllowed(ActionError):
    code = ErrorCode.BLIND_NIL_NOT_ALLOWED


class MustLookFirst(ActionError):
    code = ErrorCode.MUST_LOOK_FIRST


class NothingToLook(ActionError):
    code = ErrorCode.NOTHING_TO_LOOK


class CardNotInHand(ActionError):
    code = ErrorCode.CARD_NOT_IN_HAND


class MustFollowSuit(ActionError):
    code = ErrorCode.MUST_FOLLOW_SUIT


class SpadesNotBroken(ActionError):
    code = ErrorCode.SPADES_NOT_BROKEN


class RecordError(ValueError):
    """A record (hand or game) that cannot be read or replayed."""
