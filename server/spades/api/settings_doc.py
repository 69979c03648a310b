"""Generate what docs/rules.md and docs/protocol.md say of the room settings' defaults and
limits, from `RoomSettings` (which reads the engine's), so the docs cannot drift from it.

`python -m spades.api.docgen` writes those sections.
"""

from __future__ import annotations

from typing import Any

from spades.rooms.settings import RoomSettings, RuleOptions

from .doc_sections import replace_section

SECTION = "SETTINGS"

# What each setting means, in the words of docs/rules.md (its default and limits come from
# the model). A setting missing here fails the generation.
MEANING = {
    "mode": "`partnership` (two teams) or `individual` (four players)",
    "target": "score that ends the game",
    "nil": "nil bids are allowed",
    "blind_nil": "blind nil bids are allowed",
    "blind_nil_deficit": "how far behind a player's side must be to bid blind nil",
    "blind_bid_deficit": "how far behind a side must be to bid blind 6+, scored double; 0 = off",
    "nil_value": "points won for a nil made, lost for a nil failed",
    "blind_nil_value": "the same for blind nil",
    "bag_value": "points per overtrick (some tables play 0 or −1)",
    "bag_limit": "bags that trigger the penalty; 0 = no bag penalty",
    "bag_penalty": "points lost each time the bag limit is reached",
    "spades_must_be_broken": "spades may not be led until broken (or the leader has only spades)",
    "nil_tricks_count_for_partner": "a nil bidder's tricks count toward the partner's bid",
    "jokers": "two jokers, the highest trumps, replace the 2 of clubs and the 2 of hearts",
    "deuces": "with `jokers`: the 2 of diamonds (a spade then) and of spades are the next trumps",
    "whiz": "every bid is nil or the number of spades held (jokers count as spades)",
    "mirror": "every bid is the number of spades held; none held: nil",
    "suicide": "one partner of each team bids nil, the other `suicide_min_bid` or more",
    "suicide_min_bid": "the least the other partner bids under suicide",
    "min_team_bid": "the least the partners' bids may add up to (nil counts 0); 0 = none",
    "big_bid": "a contract of this many tricks or more scores `big_bid_value`; 0 = off",
    "big_bid_value": "points a big contract wins made, or loses set (10-for-200)",
    "moon_bonus": "extra points for taking all 13 tricks with the contract made",
    "moon_wins": "taking all 13 tricks with the contract made wins the game",
    "set_out_after": "a team set this many hands in a row loses; 0 = off",
    "mercy_score": "a team at or below minus this score loses; 0 = off",
    "turn_seconds": "seconds a player has for a bid or card; 0 = no turn timer",
    "game_minutes": "minutes the game may last; 0 = no game clock",
    "bot_level": "how the bots play (and the hints); the levels are in [bots.md](bots.md)",
    "public": "the room is listed in the lobby while it waits for players",
}
RULE_SIDE = ("mode", "target")  # set beside the rule options, in the rules table
NOT_RULES = ("turn_seconds", "game_minutes", "bot_level", "public")


def _number(value: int) -> str:
    return f"{value:,}".replace("-", "−")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return _number(value)
    return f"`{value}`"


def _fields() -> dict[str, dict[str, Any]]:
    """Per setting (rule options by their own name): its JSON Schema."""
    schema = RoomSettings.model_json_schema()
    props = dict(schema["properties"])
    props.pop("rules")
    return {**props, **RuleOptions.model_json_schema()["properties"]}


def _limits(field: dict[str, Any]) -> str:
    if "minimum" in field:
        return f"{_number(field['minimum'])} to {_number(field['maximum'])}"
    if "enum" in field:
        return ", ".join(f"`{choice}`" for choice in field["enum"])
    return ""


def _table(names: tuple[str, ...] | list[str]) -> str:
    fields = _fields()
    rows = ["| setting | default | limits | meaning |", "|---|---|---|---|"]
    for name in names:
        field = fields[name]
        rows.append(
            f"| `{name}` | {_value(field['default'])} | {_limits(field)} | {MEANING[name]} |"
        )
    return "\n".join(rows)


def rules_section() -> str:
    rule_names = list(RuleOptions.model_fields)
    return (
        f"{_table([*RULE_SIDE, *rule_names])}\n\n"
        "Room settings that are not scoring rules:\n\n"
        f"{_table(NOT_RULES)}"
    )


def protocol_section() -> str:
    fields = _fields()
    parts = []
    for name in RoomSettings.model_fields:
        if name == "rules":
            parts.append("`rules` the defaults of [rules.md](rules.md)")
            continue
        field = fields[name]
        default = field["default"]
        shown = str(default).lower() if isinstance(default, bool) else str(default)
        limits = f" ({_limits(field)})" if "minimum" in field else ""
        parts.append(f"`{name}` {shown}{limits}")
    return f"Defaults and limits: {', '.join(parts)}."


def render(text: str, section: str) -> str:
    return replace_section(text, SECTION, section)


def render_rules(text: str) -> str:
    """docs/rules.md's text with its settings table as `RoomSettings` has it now."""
    return render(text, rules_section())


def render_protocol(text: str) -> str:
    """docs/protocol.md's text with its defaults paragraph as `RoomSettings` has it now."""
    return render(text, protocol_section())
