"""Generate what docs/rules.md and docs/protocol.md say of the room settings' defaults and
limits, from `RoomSettings` (which reads the engine's), so the docs cannot drift from it.

`python -m spades.api.settings_doc` rewrites those sections; `--check` exits 1 when one is
stale (tests/api/test_api_schema_doc.py runs the check).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from spades.rooms.settings import RoomSettings, RuleOptions

BEGIN = "<!-- BEGIN GENERATED SETTINGS (python -m spades.api.settings_doc) -->"
END = "<!-- END GENERATED SETTINGS -->"
DOCS = Path(__file__).resolve().parents[3] / "docs"
RULES_DOC = DOCS / "rules.md"
PROTOCOL_DOC = DOCS / "protocol.md"

# What each setting means, in the words of docs/rules.md (its default and limits come from
# the model). A setting missing here fails the generation.
MEANING = {
    "mode": "`partnership` (two teams) or `individual` (four players)",
    "target": "score that ends the game",
    "nil": "nil bids are allowed",
    "blind_nil": "blind nil bids are allowed",
    "blind_nil_deficit": "how far behind a player's side must be to bid blind nil",
    "nil_value": "points won for a nil made, lost for a nil failed",
    "blind_nil_value": "the same for blind nil",
    "bag_value": "points per overtrick (some tables play 0 or −1)",
    "bag_limit": "bags that trigger the penalty; 0 = no bag penalty",
    "bag_penalty": "points lost each time the bag limit is reached",
    "spades_must_be_broken": "spades may not be led until broken (or the leader has only spades)",
    "nil_tricks_count_for_partner": "a nil bidder's tricks count toward the partner's bid",
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
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{section}\n{END}{tail}"


def _docs() -> list[tuple[Path, str]]:
    return [(RULES_DOC, rules_section()), (PROTOCOL_DOC, protocol_section())]


def stale() -> list[Path]:
    """The docs whose generated section differs from the source."""
    return [
        path
        for path, section in _docs()
        if render(text := path.read_text(encoding="utf-8"), section) != text
    ]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    for path, _ in _docs():
        text = path.read_text(encoding="utf-8")
        if BEGIN not in text or END not in text:
            print(f"{path}: markers missing", file=sys.stderr)
            return 2
    if "--check" in argv:
        old = stale()
        for path in old:
            print(f"{path} is stale: run python -m spades.api.settings_doc", file=sys.stderr)
        return 1 if old else 0
    for path, section in _docs():
        text = path.read_text(encoding="utf-8")
        path.write_text(render(text, section), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
