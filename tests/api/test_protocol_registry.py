"""The client message registry (spades.rooms.protocol): one declaration per type, and
what is derived from it agrees with it."""

from __future__ import annotations

import inspect
import json
from typing import Literal

import pytest

from spades.api import limits, models
from spades.api.ws import parse_frame
from spades.rooms import commands, protocol
from spades.rooms.settings import CHAT_LENGTH, NAME_LENGTH


def test_each_type_has_one_model_a_cost_and_a_handler_of_the_room_or_the_connection() -> None:
    assert list(protocol.MESSAGES) == [t.name for t in protocol.MESSAGES.values()]
    assert protocol.CLIENT_TYPES == set(protocol.MESSAGES) == set(limits.MESSAGE_COSTS)
    assert models.CLIENT_TYPES is protocol.CLIENT_TYPES
    assert models.CLIENT_MESSAGE is protocol.CLIENT_MESSAGE
    for name, entry in protocol.MESSAGES.items():
        assert entry.model.model_fields["type"].annotation == Literal[name]
        assert entry.cost >= 1.0
        if entry.handler is None:  # answered by the connection itself (api/ws.py)
            assert name in ("hello", "ping")
            continue
        # The room's own function for it, where the room's commands live.
        assert inspect.getmodule(entry.handler) is commands
        assert getattr(commands, entry.handler.__name__) is entry.handler
        assert protocol.COMMANDS[name] is entry.handler
    assert set(protocol.COMMANDS) == protocol.CLIENT_TYPES - {"hello", "ping"}
    assert {"look", "bid", "play"} == protocol.GAME_ACTIONS
    assert {"type", "id", "bid", "card"} == protocol.GAME_ACTION_FIELDS


def test_the_registry_is_sealed_and_a_type_is_registered_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(RuntimeError, match=r"declared in spades\.rooms\.protocol only"):

        @protocol.message(None, cost=1.0)
        class Later(protocol.ClientMessageBase):
            type: Literal["later"]

    monkeypatch.setattr(protocol, "_sealed", False)
    with pytest.raises(ValueError, match="twice"):

        @protocol.message(None, cost=1.0)
        class Again(protocol.ClientMessageBase):
            type: Literal["ping"]

    assert "later" not in protocol.MESSAGES and len(protocol._REGISTERED) == len(protocol.MESSAGES)


def test_the_schema_lists_the_registry_and_the_rooms_text_caps() -> None:
    schema = protocol.CLIENT_MESSAGE.json_schema()
    refs = [one["$ref"].rsplit("/", 1)[1] for one in schema["oneOf"]]
    assert refs == [t.model.__name__ for t in protocol.MESSAGES.values()]
    defs = schema["$defs"]
    assert defs["Sit"]["properties"]["name"]["maxLength"] == NAME_LENGTH
    assert defs["Chat"]["properties"]["text"]["maxLength"] == CHAT_LENGTH
    assert defs["Play"]["properties"]["card"]["maxLength"] == protocol.CARD_LENGTH


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "sit", "name": "n" * NAME_LENGTH}, None),
        ({"type": "sit", "name": "n" * (NAME_LENGTH + 1)}, "too_long"),
        ({"type": "chat", "text": "t" * CHAT_LENGTH}, None),
        ({"type": "chat", "text": "t" * (CHAT_LENGTH + 1)}, "too_long"),
        ({"type": "hello", "token": "t" * 65}, "invalid_message"),
        ({"type": "play", "card": "10HX1"}, "invalid_message"),
    ],
)
def test_text_over_the_wire_cap_is_answered_as_the_room_answers_it(
    message: dict[str, object], code: str | None
) -> None:
    parsed, error = parse_frame(json.dumps({**message, "id": 7}))
    if code is None:
        assert error is None and parsed is not None
    else:
        assert parsed is None and error["code"] == code and error["ref"] == 7
        if code == "too_long":
            limit = NAME_LENGTH if message["type"] == "sit" else CHAT_LENGTH
            assert error["message"].endswith(f"longer than {limit} characters")
