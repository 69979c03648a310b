"""A room's settings, typed, with their defaults and limits in this one place.

`RoomSettings` is what a room holds and stores, what the API takes and answers (its JSON
Schema is served at `GET /api/settings`, from which the web client builds its settings
form), and where every limit is checked. Rule options default to the engine's `Rules`.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from spades.bots import LEVELS
from spades.codes import ErrorCode
from spades.engine import Rules, RulesError
from spades.engine.rules import DEFAULT_RULES as _RULES
from spades.engine.rules import LIMITS as RULE_LIMITS
from spades.engine.rules import RULE_PRESETS as ENGINE_PRESETS

from .errors import BadRequest

log = logging.getLogger(__name__)

BOT_LEVELS: tuple[str, ...] = LEVELS
# The room's own limits, for settings the engine does not know (both ends allowed).
LIMITS: dict[str, tuple[int, int]] = {"turn_seconds": (0, 600), "game_minutes": (0, 600)}
# The one place the room is stricter than the engine: a game to less than 50 is over in a
# hand or two, which no table means to play (the engine accepts any positive target, so
# tests and simulations can play short games).
MIN_TARGET = 50
# The longest display name and chat message, in characters: the room's limit and the wire's cap
# (an operator may set a lower limit, never a higher one).
NAME_LENGTH = 24
CHAT_LENGTH = 300


class _Bounds(TypedDict):
    ge: int
    le: int


def _limits(name: str) -> _Bounds:
    """`ge`/`le` of a whole-number setting: the room's own limits, else the engine's."""
    low, high = LIMITS[name] if name in LIMITS else RULE_LIMITS[name]
    if name == "target":
        low = MIN_TARGET
    return _Bounds(ge=low, le=high)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class RuleOptions(_Frozen):
    """The rule options of docs/rules.md: everything of the engine's `Rules` but mode and
    target."""

    nil: bool = Field(_RULES.nil, title="Nil", description="a bid of zero tricks")
    blind_nil: bool = Field(
        _RULES.blind_nil, title="Blind nil", description="nil bid before looking at the cards"
    )
    blind_nil_deficit: int = Field(
        _RULES.blind_nil_deficit,
        **_limits("blind_nil_deficit"),
        title="Blind nil when behind by",
        description="a side may bid blind nil only when this many points behind",
    )
    blind_bid_deficit: int = Field(
        _RULES.blind_bid_deficit,
        **_limits("blind_bid_deficit"),
        title="Blind 6+ when behind by",
        description="blind bids of 6 or more, scored double, for a side this far behind; 0 = off",
    )
    nil_value: int = Field(_RULES.nil_value, **_limits("nil_value"), title="Nil is worth")
    blind_nil_value: int = Field(
        _RULES.blind_nil_value, **_limits("blind_nil_value"), title="Blind nil is worth"
    )
    bag_value: int = Field(
        _RULES.bag_value,
        **_limits("bag_value"),
        title="Points per bag",
        description="per overtrick",
    )
    bag_limit: int = Field(
        _RULES.bag_limit,
        **_limits("bag_limit"),
        title="Bags per penalty",
        description="0 = no bag penalty",
    )
    bag_penalty: int = Field(_RULES.bag_penalty, **_limits("bag_penalty"), title="Bag penalty")
    spades_must_be_broken: bool = Field(
        _RULES.spades_must_be_broken,
        title="Spades must be broken",
        description="spades may not be led until one has been played",
    )
    nil_tricks_count_for_partner: bool = Field(
        _RULES.nil_tricks_count_for_partner,
        title="Nil tricks count for the partner",
        description="tricks a failed nil takes count toward the partner's bid",
    )
    jokers: bool = Field(
        _RULES.jokers,
        title="Jokers",
        description="Big and Little Joker are the top trumps; the 2 of clubs and of hearts go",
    )
    deuces: bool = Field(
        _RULES.deuces,
        title="Deuce-Deuce",
        description="with jokers: the 2 of diamonds, then the 2 of spades, rank just below them",
    )
    whiz: bool = Field(
        _RULES.whiz,
        title="Whiz",
        description="every player bids nil or the number of spades they hold",
    )
    mirror: bool = Field(
        _RULES.mirror,
        title="Mirror",
        description="every player bids the number of spades they hold (none: nil)",
    )
    suicide: bool = Field(
        _RULES.suicide,
        title="Suicide",
        description="one partner of each team bids nil, the other at least the suicide bid",
    )
    suicide_min_bid: int = Field(
        _RULES.suicide_min_bid,
        **_limits("suicide_min_bid"),
        title="Suicide bid at least",
        description="the least the partner who does not bid nil bids, under suicide",
    )
    min_team_bid: int = Field(
        _RULES.min_team_bid,
        **_limits("min_team_bid"),
        title="Minimum team bid",
        description="partners' bids add up to at least this (nil counts 0); 0 = none",
    )
    big_bid: int = Field(
        _RULES.big_bid,
        **_limits("big_bid"),
        title="Big bid from",
        description="a contract this big or bigger scores the big bid value; 0 = off",
    )
    big_bid_value: int = Field(
        _RULES.big_bid_value,
        **_limits("big_bid_value"),
        title="Big bid is worth",
        description="won when made, lost when set (10-for-200)",
    )
    moon_bonus: int = Field(
        _RULES.moon_bonus,
        **_limits("moon_bonus"),
        title="Moon bonus",
        description="extra points for all 13 tricks with the contract made",
    )
    set_out_after: int = Field(
        _RULES.set_out_after,
        **_limits("set_out_after"),
        title="Set out after",
        description="a team set this many hands in a row loses; 0 = off",
    )
    mercy_score: int = Field(
        _RULES.mercy_score,
        **_limits("mercy_score"),
        title="Mercy at minus",
        description="a team at or below minus this score loses; 0 = off",
    )
    moon_wins: bool = Field(
        _RULES.moon_wins,
        title="Moon wins the game",
        description="all 13 tricks with the contract made wins outright",
    )


class RoomSettings(_Frozen):
    """Everything a host may set before a game: mode, target, clocks, rules, bots, lobby."""

    mode: Literal["partnership", "individual"] = Field(
        _RULES.mode, title="Mode", description="partners (2 vs 2) or every player for themself"
    )
    target: int = Field(
        _RULES.target, **_limits("target"), title="Play to", description="the winning score"
    )
    turn_seconds: int = Field(
        0, **_limits("turn_seconds"), title="Turn timer (seconds)", description="0 = untimed"
    )
    game_minutes: int = Field(
        0, **_limits("game_minutes"), title="Game clock (minutes)", description="0 = none"
    )
    rules: RuleOptions = Field(default_factory=RuleOptions, title="Rules")
    bot_level: str = Field(
        "basic",
        title="Bot level",
        description="how the bots play (and the hints)",
        json_schema_extra={"enum": list(BOT_LEVELS)},
    )
    public: bool = Field(True, title="List in public rooms", description="shown in the lobby")
    rated: bool = Field(
        False,
        title="Rated",
        description="the host's choice at creation, shown in the lobby; a rated room whose "
        "game starts with a bot in a seat (empty seats filled at the start) is not rated "
        "from then on; quick play rooms are rated",
    )

    def unrated(self) -> RoomSettings:
        """The same settings, not rated (a room where bots play)."""
        return self.model_copy(update={"rated": not self.rated}) if self.rated else self

    @field_validator("bot_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        if value not in BOT_LEVELS:
            raise ValueError(f"must be one of {', '.join(BOT_LEVELS)}")
        return value

    @classmethod
    def parse(cls, raw: Any, base: RoomSettings | None = None) -> RoomSettings:
        """`raw` over `base` (or the defaults): the fields given replace, rule options one by
        one; None means "keep". Raises BadRequest naming the field."""
        if isinstance(raw, RoomSettings):
            raw = raw.model_dump()
        if not isinstance(raw, dict):
            raise BadRequest("settings must be an object")
        data = base.model_dump() if base is not None else {}
        given = {k: v for k, v in raw.items() if v is not None}
        rules = given.pop("rules", None)
        if rules is not None:
            if not isinstance(rules, dict):
                raise BadRequest("rules must be an object")
            if "mode" in rules or "target" in rules:
                raise BadRequest("mode and target are settings of their own, not rule options")
            merged = dict(data.get("rules", {}))
            merged.update({k: v for k, v in rules.items() if v is not None})
            given["rules"] = merged
        data.update(given)
        try:
            settings = cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "settings"
            raise BadRequest(f"{where}: {first['msg']}") from exc
        settings.rules_value()
        return settings

    def rules_value(self) -> Rules:
        """The engine's rules for a game under these settings. Raises BadRequest."""
        try:
            return Rules.from_dict(
                {**self.rules.model_dump(), "mode": self.mode, "target": self.target}
            )
        except (RulesError, TypeError) as exc:
            raise BadRequest(str(exc)) from exc

    @classmethod
    def from_stored(cls, raw: dict[str, Any]) -> RoomSettings:
        """Stored settings, read leniently: a value the limits of today refuse (stored under
        older ones) falls back to its default instead of keeping the room from loading."""
        try:
            return cls.parse(raw)
        except BadRequest:
            pass
        settings = cls()
        for key, value in raw.items():
            parts = value.items() if key == "rules" and isinstance(value, dict) else [(key, value)]
            for name, item in parts:
                one = {"rules": {name: item}} if key == "rules" else {name: item}
                try:
                    settings = cls.parse(one, settings)
                except BadRequest as exc:
                    log.warning("stored setting %s dropped: %s", name, exc.message)
        return settings


# The values the web client offers as one click each (a target may also be typed in);
# every one lies within its field's limits.
PRESETS: dict[str, tuple[int, ...]] = {
    "target": (200, 300, 500),
    "turn_seconds": (0, 15, 30, 60, 120),
    "game_minutes": (0, 15, 30, 45, 60, 90),
}
# The named rule presets the create form offers as one click each: the engine's
# (`spades.engine.rules.RULE_PRESETS`, which `spades simulate --preset` plays too).
RULE_PRESETS = ENGINE_PRESETS
# What "Play solo" starts from, over the defaults: with three bots at the table, a game in
# which everyone plays for themself reads best.
SOLO: dict[str, Any] = {"mode": "individual"}


def settings_schema() -> dict[str, Any]:
    """The JSON Schema of `RoomSettings`: per field its default, limits, choices and text;
    beside it the client's `presets`, the named `rule_presets`, `solo` settings and the
    `lengths` of a name and a chat message (served, so that the client spells no setting of
    its own)."""
    schema = RoomSettings.model_json_schema()
    schema["presets"] = {name: list(values) for name, values in PRESETS.items()}
    schema["solo"] = dict(SOLO)
    schema["rule_presets"] = {name: dict(rules) for name, rules in RULE_PRESETS.items()}
    schema["lengths"] = {"name": NAME_LENGTH, "chat": CHAT_LENGTH}
    return schema


# The joiners that shape emoji sequences and many scripts (Persian, the Indic ones) stay;
# other invisible format characters (bidi overrides, soft hyphens, ...) and controls go.
_KEEP_FORMAT = frozenset("\u200c\u200d")
# Letters and symbols that render as nothing: a name of them alone would look empty.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")
MAX_MARKS = 4  # combining marks on one character (more only pile up over other lines)
# Names that would pass for the table's own: a bot's, or the chat's name for spectators.
_RESERVED_NAME = re.compile(r"^((south|west|north|east) ?)?bot$|^spectator ?\d*$")
# Letters of other scripts that look like Latin ones of the table's own names (Cyrillic and
# Greek), read as those by the reserved-name check only (after case folding).
_LOOK_ALIKE = str.maketrans(
    {
        "\u0430": "a", "\u0441": "c", "\u0435": "e", "\u043e": "o", "\u0440": "p",
        "\u0445": "x", "\u0443": "y", "\u0455": "s", "\u0456": "i", "\u0442": "t",
        "\u043d": "h", "\u0432": "b", "\u043a": "k", "\u043c": "m",
        "\u03bf": "o", "\u03b1": "a", "\u03b2": "b", "\u03b5": "e", "\u03b7": "h",
        "\u03bd": "v", "\u03c1": "p", "\u03c4": "t", "\u03ba": "k", "\u03b9": "i",
    }
)  # fmt: skip


def clean_text(text: str, limit: int, what: str) -> str:
    """Plain text: control and invisible format characters dropped, blank-looking letters
    read as spaces, combining marks at most MAX_MARKS per character, whitespace trimmed;
    refused when nothing visible is left, or when too long."""
    kept: list[str] = []
    marks = 0
    for ch in text:
        if ch in _BLANK:
            ch = " "
        elif not ch.isprintable() and ch not in _KEEP_FORMAT:
            continue
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS:
                continue
        else:
            marks = 0
        kept.append(ch)
    cleaned = "".join(kept).strip()
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in cleaned):
        raise BadRequest(f"{what} is empty", code=ErrorCode.EMPTY_TEXT)
    if len(cleaned) > limit:
        raise BadRequest(f"{what} is longer than {limit} characters", code=ErrorCode.TOO_LONG)
    return cleaned


def clean_name(text: str, limit: int) -> str:
    """A display name: `clean_text`, and not one the table uses for others."""
    name = clean_text(text, limit, "name")
    if _RESERVED_NAME.match(_skeleton(name)):
        raise BadRequest("that name is the table's own; pick another", code=ErrorCode.RESERVED_NAME)
    return name


def distinct_name(name: str, others: list[str], limit: int) -> str:
    """`name`, or when it reads as one of `others` (case, look-alikes and invisible
    characters aside) the first of "name 2", "name 3", ... that does not: two players at
    one table never look the same."""
    taken = {_skeleton(other) for other in others}
    if _skeleton(name) not in taken:
        return name
    for n in range(2, 10):
        suffix = f" {n}"
        candidate = name[: limit - len(suffix)].rstrip() + suffix
        if _skeleton(candidate) not in taken and not _RESERVED_NAME.match(_skeleton(candidate)):
            return candidate
    return name  # (four seats: never reached)


def _skeleton(name: str) -> str:
    """What a name looks like, for the reserved-name check: compatibility forms folded
    (NFKC), invisible characters (joiners and other format characters) and combining marks
    dropped, case folded, look-alike letters of other scripts read as Latin, spaces of any
    kind as one. "Spec\u200dtator 1", "\u0405pectator 1" and "South\u00a0Bot" all read as
    the table's own names."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name)).casefold()
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in folded
        if unicodedata.category(ch) not in ("Cf", "Mn", "Me", "Mc")
    )
    return " ".join(kept.translate(_LOOK_ALIKE).split())
