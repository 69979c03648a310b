"""The home page's forms start from the server's settings (GET /api/settings): its defaults,
its presets and Play solo's settings; the client spells none of them."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.e2e


def test_home_forms_start_from_the_servers_settings(new_page: Any) -> None:
    page = new_page()
    page.goto("/")
    page.get_by_role("button", name="Create room").wait_for()
    schema = page.request.get("/api/settings").json()
    fields = schema["properties"]
    rules = schema["$defs"]["RuleOptions"]["properties"]
    default = {name: field["default"] for name, field in fields.items() if "default" in field}

    # What the create form would send, untouched: the server's defaults, every one.
    form = page.locator("form[data-form='create']")
    assert form.locator("input[name='new-mode']:checked").input_value() == default["mode"]
    assert form.locator("input[name='new-target']:checked").input_value() == str(default["target"])
    assert form.get_by_label("List in public rooms").is_checked() is default["public"]
    assert form.get_by_label("Bot level", exact=True).input_value() == default["bot_level"]
    assert page.locator("#new-turn-select").input_value() == str(default["turn_seconds"])
    assert page.locator("#new-clock-select").input_value() == str(default["game_minutes"])
    sent = page.evaluate(
        """async () => {
            const { readSettings } = await import('/js/views/settings.js');
            return readSettings(document.querySelector("form[data-form='create']"));
        }"""
    )
    assert sent["rules"] == {name: field["default"] for name, field in rules.items()}
    assert {k: v for k, v in sent.items() if k != "rules"} == default

    # The one-click choices are the server's presets, in both forms.
    targets = [str(t) for t in schema["presets"]["target"]]
    assert (
        form.locator("input[name='new-target']:not([value='custom'])").evaluate_all(
            "els => els.map(e => e.value)"
        )
        == targets
    )
    solo = page.locator("form[data-form='solo']")
    assert (
        solo.locator("input[name='solo-target']:not([value='custom'])").evaluate_all(
            "els => els.map(e => e.value)"
        )
        == targets
    )
    turns = [str(t) for t in schema["presets"]["turn_seconds"]]
    assert (
        page.locator("#new-turn-select option").evaluate_all("els => els.map(e => e.value)")
        == turns
    )
    assert page.locator("#solo-turn option").evaluate_all("els => els.map(e => e.value)") == turns

    # Play solo: the server's solo settings over its defaults.
    solo_default = {**default, **schema["solo"]}
    assert solo.locator("input[name='solo-mode']:checked").input_value() == solo_default["mode"]
    assert solo.locator("input[name='solo-target']:checked").input_value() == str(
        solo_default["target"]
    )
    assert page.locator("#solo-turn").input_value() == str(solo_default["turn_seconds"])
    assert page.locator("#solo-bots").input_value() == solo_default["bot_level"]

    # The name field takes what the server takes.
    assert page.locator("#player-name").get_attribute("maxlength") == str(schema["lengths"]["name"])
