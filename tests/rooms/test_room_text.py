"""Display names and chat text: what is kept, what is dropped, what is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from room_helpers import manager_for

from spades.rooms import ManualClock
from spades.rooms.errors import BadRequest
from spades.rooms.settings import MAX_MARKS, clean_name, clean_text, distinct_name


@pytest.mark.parametrize(
    ("given_text", "kept"),
    [
        ("  Ann  ", "Ann"),
        ("\u202eevil", "evil"),  # a bidi override would flip the text around it
        ("x\u00ady\x07", "xy"),  # soft hyphen, bell
        (
            "\U0001f468\u200d\U0001f469\u200d\U0001f467",
            "\U0001f468\u200d\U0001f469\u200d\U0001f467",
        ),
        (
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
        ),
        ("a" + "\u0301" * 20, "a" + "\u0301" * MAX_MARKS),  # no piles of accents
        ("Ann\u3164\u3164Lee", "Ann  Lee"),  # blank-looking letters read as spaces
    ],
)
def test_names_keep_what_shows_and_drop_what_hides(given_text: str, kept: str) -> None:
    assert clean_name(given_text, 24) == kept


@pytest.mark.parametrize(
    ("given_text", "code"),
    [
        ("   ", "empty_text"),
        ("\u3164\u3164", "empty_text"),  # Hangul filler: a letter that shows nothing
        ("\u2800", "empty_text"),  # Braille blank
        ("\u200d\u200c", "empty_text"),
        ("\u0301\u0301", "empty_text"),
        ("West Bot", "reserved_name"),
        ("east   BOT", "reserved_name"),
        ("Bot", "reserved_name"),
        ("Spectator", "reserved_name"),
        ("spectator  12", "reserved_name"),
        ("Spec\u200dtator 1", "reserved_name"),  # a joiner, invisible
        ("South\u200d Bot", "reserved_name"),
        ("\u0405pectator 1", "reserved_name"),  # a Cyrillic S
        ("Spectator\u00a01", "reserved_name"),
        ("\u0392ot", "reserved_name"),  # a Greek B
        ("x" * 25, "too_long"),
    ],
)
def test_names_that_would_mislead_are_refused(given_text: str, code: str) -> None:
    with pytest.raises(BadRequest) as refused:
        clean_name(given_text, 24)
    assert refused.value.code == code


def test_chat_may_say_what_a_name_may_not() -> None:
    assert clean_text("Spectator", 300, "chat message") == "Spectator"


@given(st.text(max_size=60))
def test_cleaned_text_is_printable_and_bounded(text: str) -> None:
    try:
        cleaned = clean_text(text, 300, "chat message")
    except BadRequest:
        return
    assert cleaned == cleaned.strip() and 0 < len(cleaned) <= len(text)
    assert all(ch.isprintable() or ch in "\u200c\u200d" for ch in cleaned)


@pytest.mark.parametrize(
    ("name", "others", "shown"),
    [
        ("Alice", ["Bob"], "Alice"),
        ("Alice", ["Alice"], "Alice 2"),
        ("alice", ["Alice", "Alice 2"], "alice 3"),
        ("\u0410lice", ["Alice"], "\u0410lice 2"),  # a Cyrillic A
        ("Ali\u200bce", ["Alice"], "Ali\u200bce 2"),
        ("x" * 24, ["x" * 24], "x" * 22 + " 2"),  # still within the name length
    ],
)
def test_two_players_at_a_table_never_look_the_same(
    name: str, others: list[str], shown: str
) -> None:
    assert distinct_name(name, others, 24) == shown


async def test_joining_under_a_name_already_at_the_table_gets_a_number(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, _ = await manager.create("Alice", {})
    for name in ("alice", "ALICE", "Bob"):
        await room.call(room.join, name, None, False)
    assert [s.name for s in room.seats] == ["Alice", "alice 2", "ALICE 3", "Bob"]
    await manager.stop()
