"""The rule set of a room: one frozen value, every option of docs/rules.md as a field."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

Mode = Literal["individual", "partnership"]
MODES: tuple[Mode, ...] = ("individual", "partnership")


BLIND_BID_LEAST = 6  # the least blind bid of a number (`blind_bid_deficit`)


class RulesError(ValueError):
    """A rule option with a value outside its allowed range."""


# The range of every whole-number option, both ends allowed: the one statement of these
# limits (the room settings read them from here).
LIMITS: dict[str, tuple[int, int]] = {
    "target": (1, 10_000),
    "blind_nil_deficit": (0, 10_000),
    "blind_bid_deficit": (0, 10_000),
    "nil_value": (0, 1_000),
    "blind_nil_value": (0, 1_000),
    "bag_value": (-10, 10),
    "bag_limit": (0, 100),
    "bag_penalty": (0, 1_000),
    "min_team_bid": (0, 13),
    "suicide_min_bid": (1, 13),
    "big_bid": (0, 13),
    "big_bid_value": (0, 1_000),
    "moon_bonus": (0, 1_000),
    "set_out_after": (0, 20),
    "mercy_score": (0, 10_000),
}
# The options that only make sense between two teams (the engine refuses them otherwise).
PARTNERSHIP_ONLY: tuple[str, ...] = ("min_team_bid", "set_out_after", "mercy_score", "suicide")


@dataclass(frozen=True, slots=True)
class Rules:
    mode: Mode = "partnership"
    target: int = 500
    nil: bool = True
    blind_nil: bool = True
    blind_nil_deficit: int = 100
    nil_value: int = 100
    blind_nil_value: int = 200
    bag_value: int = 1
    bag_limit: int = 10  # 0 turns bag penalties off
    bag_penalty: int = 100
    spades_must_be_broken: bool = True
    nil_tricks_count_for_partner: bool = False
    # The deck: two jokers, the highest trumps, for the 2 of clubs and the 2 of hearts.
    jokers: bool = False
    # Deuce-Deuce (needs jokers): the 2 of diamonds and the 2 of spades are trumps just below
    # the jokers, the 2 of diamonds the higher; the 2 of diamonds follows as a spade.
    deuces: bool = False
    # Forced bids: nil or the number of spades held (whiz), or that number (mirror).
    whiz: bool = False
    mirror: bool = False
    # Blind bids of BLIND_BID_LEAST or more, scored double, for a side this far behind; 0 = off.
    blind_bid_deficit: int = 0
    # Suicide: one partner of each side bids nil, the other at least suicide_min_bid.
    suicide: bool = False
    suicide_min_bid: int = 4
    # Bid rules (docs/rules.md "House rules"); every one is off at its default.
    min_team_bid: int = 0  # the least a team's bids may add up to (nil counts 0)
    big_bid: int = 0  # a contract of this many tricks or more scores big_bid_value; 0 = off
    big_bid_value: int = 200
    moon_bonus: int = 0  # extra points for a team that takes all 13 tricks and its contract
    moon_wins: bool = False  # ... and that team wins the game outright
    set_out_after: int = 0  # a team set this many hands in a row loses; 0 = off
    mercy_score: int = 0  # a team at or below minus this many points loses; 0 = off

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise RulesError(f"mode must be 'individual' or 'partnership', not {self.mode!r}")
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool",) and not isinstance(value, bool):
                raise RulesError(f"{f.name} must be true or false, not {value!r}")
            if f.type in ("int",) and (isinstance(value, bool) or not isinstance(value, int)):
                raise RulesError(f"{f.name} must be a whole number, not {value!r}")
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise RulesError(f"{name} must be between {low} and {high}, not {value}")
        if self.deuces and not self.jokers:
            raise RulesError("deuces (Deuce-Deuce) needs jokers: its deuces rank below them")
        if self.whiz and self.mirror:
            raise RulesError("whiz and mirror are two ways of forcing the bids: pick one")
        if (self.whiz or self.mirror) and self.min_team_bid:
            raise RulesError("a minimum team bid cannot be kept when the bids are forced")
        if self.suicide and (self.forced_bids or self.min_team_bid or not self.nil):
            raise RulesError(
                "suicide sets the bids itself: it needs nil, and no whiz, mirror "
                "or minimum team bid"
            )
        if self.whiz and not self.nil:
            raise RulesError("whiz needs nil: its bids are nil or the spades held")
        if self.mode != "partnership":
            for name in PARTNERSHIP_ONLY:
                if getattr(self, name):
                    raise RulesError(f"{name} is a partnership rule: set it to 0 in {self.mode}")

    @property
    def forced_bids(self) -> bool:
        """True when a bid is set by the cards (whiz or mirror): no free choice, no blind nil."""
        return self.whiz or self.mirror

    @property
    def partnership(self) -> bool:
        return self.mode == "partnership"

    @property
    def sides(self) -> int:
        """Number of scoring sides: 2 in partnership, 4 in individual play."""
        return 2 if self.mode == "partnership" else 4

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.mode == "partnership" else seat

    def seats_of(self, side: int) -> tuple[int, ...]:
        return (side, side + 2) if self.mode == "partnership" else (side,)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Rules:
        """Build from JSON; missing fields take defaults, unknown fields are an error."""
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(f"unknown rule option(s): {', '.join(unknown)}")
        return cls(**data)


# Every option at its default: what a reader of a rules dict falls back to for a missing one.
DEFAULT_RULES = Rules()


# Named sets of rule options (the create form offers each as one click; `spades simulate
# --preset` plays them): each one is the default rules with these over them ("Classic" is
# the defaults), and all lie within the limits (a test builds the engine's rules of each).
RULE_PRESETS: dict[str, dict[str, Any]] = {
    "Classic": {},
    "Jokers": {"jokers": True},
    "Deuce-Deuce": {"jokers": True, "deuces": True},
    "Whiz": {"whiz": True},
    "Mirror": {"mirror": True},
    "Suicide": {"suicide": True},
    "Blind 6+": {"blind_bid_deficit": 250},
    "Bid rules": {
        "min_team_bid": 4,
        "big_bid": 10,
        "moon_bonus": 200,
        "set_out_after": 3,
        "mercy_score": 300,
    },
}
