"""The rules of Spades. Standard library only: no I/O, no asyncio, no project imports."""

from .cards import Card, CardParseError, card_name, card_text, parse_card
from .errors import (
    ActionError,
    BidOutOfRange,
    BlindNilNotAllowed,
    CardNotInHand,
    GameOver,
    MalformedAction,
    MustFollowSuit,
    MustLookFirst,
    NilNotAllowed,
    NothingToLook,
    NotYourTurn,
    RecordError,
    SpadesNotBroken,
    WrongPhase,
)
from .fast import (
    FastHand,
    deal_commitment,
    deal_from_seed,
    hand_seed,
    legal_mask,
    trick_winner,
)
from .game import Action, Game, format_bid
from .rules import RULE_PRESETS, Rules, RulesError
from .scoring import HandScore, game_winner, score_hand, winner_after

__all__ = [
    "RULE_PRESETS",
    "Action",
    "ActionError",
    "BidOutOfRange",
    "BlindNilNotAllowed",
    "Card",
    "CardNotInHand",
    "CardParseError",
    "FastHand",
    "Game",
    "GameOver",
    "HandScore",
    "MalformedAction",
    "MustFollowSuit",
    "MustLookFirst",
    "NilNotAllowed",
    "NotYourTurn",
    "NothingToLook",
    "RecordError",
    "Rules",
    "RulesError",
    "SpadesNotBroken",
    "WrongPhase",
    "card_name",
    "card_text",
    "deal_commitment",
    "deal_from_seed",
    "format_bid",
    "game_winner",
    "hand_seed",
    "legal_mask",
    "parse_card",
    "score_hand",
    "trick_winner",
    "winner_after",
]
