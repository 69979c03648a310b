"""Each default and each limit of a room setting is spelled in exactly one Python place.

What `git grep` would find in server/spades: the docs and the web client get these values
from the source (generated sections, GET /api/settings), so a second spelling could only
drift from the first.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from spades.config import Settings
from spades.engine.rules import LIMITS as RULE_LIMITS
from spades.rooms.settings import (
    CHAT_LENGTH,
    LIMITS,
    MIN_TARGET,
    NAME_LENGTH,
    RoomSettings,
    RuleOptions,
    settings_schema,
)

ROOT = Path(__file__).resolve().parents[2]
# Spellings allowed elsewhere, by the file they are in: none.
TODAY: dict[str, set[str]] = {}


def _sources() -> dict[str, str]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "server/spades"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return {
        name: (ROOT / name).read_text(encoding="utf-8")
        for name in listed
        if name.endswith(".py") and (ROOT / name).exists()
    }


SOURCES = _sources()


def _fields() -> dict[str, dict[str, Any]]:
    props = dict(RoomSettings.model_json_schema()["properties"])
    props.pop("rules")
    return {**props, **RuleOptions.model_json_schema()["properties"]}


FIELDS = _fields()


def _literals(value: Any) -> list[str]:
    """The ways Python source may spell `value`."""
    if isinstance(value, bool):
        return [str(value)]
    if isinstance(value, int):
        return sorted({str(value), f"{value:_}"})
    return [f'"{value}"', f"'{value}'"]


def _places(pattern: str) -> list[str]:
    found = re.compile(pattern)
    return [
        f"{name}:{text.count(chr(10), 0, match.start()) + 1}"
        for name, text in SOURCES.items()
        for match in found.finditer(text)
    ]


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_a_default_is_spelled_once(name: str) -> None:
    literal = "|".join(re.escape(form) for form in _literals(FIELDS[name]["default"]))
    # `name: T = value`, `name=value`, `name: T = Field(value`, `"name": value`,
    # `.get("name", value)`
    assigned = rf"\b{name}\b\s*(?::[^=\n]+)?=\s*(?:Field\(\s*)?(?:{literal})(?![\w.])"
    keyed = rf"[\"']{name}[\"']\s*[:,]\s*(?:{literal})(?![\w.])"
    places = [
        place
        for place in _places(f"{assigned}|{keyed}")
        if place.split(":")[0] not in TODAY.get(name, set())
    ]
    assert len(places) == 1, f"default of {name} spelled at {places}"


@pytest.mark.parametrize("name", sorted(n for n, f in FIELDS.items() if f.get("type") == "integer"))
def test_limits_are_spelled_once(name: str) -> None:
    places = _places(rf"[\"']{name}[\"']\s*:\s*\(\s*-?[\d_]+\s*,\s*-?[\d_]+\s*\)")
    assert len(places) == 1, f"limits of {name} spelled at {places}"
    low, high = LIMITS.get(name) or RULE_LIMITS[name]
    if name == "target":
        low = MIN_TARGET  # the room's one own limit on an engine option
    field = FIELDS[name]
    assert (field["minimum"], field["maximum"]) == (low, high)


def test_the_room_spells_no_limit_of_its_own_fields() -> None:
    settings = SOURCES["server/spades/rooms/settings.py"]
    assert not re.findall(r"\b(?:ge|le|gt|lt)=-?\d", settings)
    assert len(_places(r"\bMIN_TARGET\s*=\s*\d")) == 1


def test_served_presets_and_lengths_are_within_the_limits() -> None:
    schema = settings_schema()
    for name, values in schema["presets"].items():
        field = FIELDS[name]
        assert all(field["minimum"] <= v <= field["maximum"] for v in values), name
    assert set(schema["solo"]) <= set(FIELDS)
    RoomSettings.parse(schema["solo"])  # a valid setting
    assert schema["lengths"] == {"name": NAME_LENGTH, "chat": CHAT_LENGTH}


def test_an_operator_may_shorten_names_and_chat_but_not_lengthen_them() -> None:
    assert (Settings().name_length, Settings().chat_length) == (NAME_LENGTH, CHAT_LENGTH)
    assert Settings(name_length=10).name_length == 10
    for too_long in ({"name_length": NAME_LENGTH + 1}, {"chat_length": CHAT_LENGTH + 1}):
        with pytest.raises(ValidationError):
            Settings(**too_long)


def test_every_rule_preset_is_valid_rules_and_served() -> None:
    from spades.rooms.settings import RULE_PRESETS, RoomSettings, settings_schema

    assert RULE_PRESETS["Classic"] == {}
    for preset in RULE_PRESETS.values():
        RoomSettings.parse({"rules": preset}).rules_value()
    assert settings_schema()["rule_presets"] == RULE_PRESETS
