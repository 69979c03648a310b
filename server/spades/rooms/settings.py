"""A room's settings: mode, target, clocks, rule options, bot level, visibility."""

from __future__ import annotations

from typing import Any

from spades.engine import Rules, RulesError

from .errors import BadRequest

BOT_LEVELS = ("random", "easy", "basic", "strong")
MAX_TURN_SECONDS = 600
MAX_GAME_MINUTES = 600

DEFAULTS: dict[str, Any] = {
    "mode": "partnership",
    "target": 500,
    "turn_seconds": 0,
    "game_minutes": 0,
    "rules": {},
    "bot_level": "basic",
    "public": True,
}


def normalize_settings(raw: dict[str, Any], base: dict[str, Any] | None = None) -> dict[str, Any]:
    """Merge `raw` over `base` (or the defaults) and check every field. Raises BadRequest."""
    merged = dict(DEFAULTS if base is None else base)
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        raise BadRequest(f"unknown setting(s): {', '.join(unknown)}")
    merged.update({k: v for k, v in raw.items() if v is not None})
    for key, high in (("turn_seconds", MAX_TURN_SECONDS), ("game_minutes", MAX_GAME_MINUTES)):
        value = merged[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
            raise BadRequest(f"{key} must be a whole number from 0 to {high}")
    if merged["bot_level"] not in BOT_LEVELS:
        raise BadRequest(f"bot_level must be one of {', '.join(BOT_LEVELS)}")
    if not isinstance(merged["public"], bool):
        raise BadRequest("public must be true or false")
    options = merged["rules"]
    if not isinstance(options, dict):
        raise BadRequest("rules must be an object")
    options = {k: v for k, v in options.items() if v is not None}
    if "mode" in options or "target" in options:
        raise BadRequest("mode and target are settings of their own, not rule options")
    merged["rules"] = options
    rules_of(merged)
    return merged


def rules_of(settings: dict[str, Any]) -> Rules:
    try:
        return Rules.from_dict(
            {**settings["rules"], "mode": settings["mode"], "target": settings["target"]}
        )
    except (RulesError, TypeError) as exc:
        raise BadRequest(str(exc)) from exc


def clean_text(text: str, limit: int, what: str) -> str:
    """Plain text: control characters dropped, whitespace trimmed, length checked."""
    cleaned = "".join(ch for ch in text if ch.isprintable()).strip()
    if not cleaned:
        raise BadRequest(f"{what} is empty", code="empty_text")
    if len(cleaned) > limit:
        raise BadRequest(f"{what} is longer than {limit} characters", code="too_long")
    return cleaned
