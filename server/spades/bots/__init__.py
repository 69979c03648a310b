"""Bots: a function of one seat's own view to one action from `view["legal"]`.

`decide(level, view, seed=...)` is synchronous and pure: the same view and seed give the same
action. `random` and `basic` answer in well under 2 ms; `strong` searches and may take up to
its time budget (see `spades.bots.strong`).
"""

from __future__ import annotations

import random
from typing import Any

from ._guard import install_guard

install_guard()  # a compiled build of the strong bot's modules is used only while current

Action = dict[str, Any]
LEVELS: tuple[str, ...] = ("random", "easy", "basic", "strong")


def _rng(view: dict[str, Any], seed: int | None) -> random.Random:
    if seed is None:
        # Pure: without a seed, derive one from the view itself.
        played = sum(len(t["cards"]) for t in view.get("tricks") or [])
        cur = view.get("current_trick") or {}
        key = (
            f"{view.get('seat')}|{view.get('hand_number')}|{played}|"
            f"{len(cur.get('cards') or [])}|{view.get('hand')}|{view.get('scores')}"
        )
        return random.Random(key)
    return random.Random(seed)


def decide(level: str, view: dict[str, Any], *, seed: int | None = None) -> Action:
    """One action from `view["legal"]` for the seat whose view this is."""
    legal = view.get("legal") or []
    if not legal:
        raise ValueError("nothing to decide: the view has no legal actions")
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")
    if len(legal) == 1:  # (a forced card, or a bid whiz or mirror leaves no choice about)
        return dict(legal[0])
    if level == "random":
        return dict(_rng(view, seed).choice(legal))
    if level == "easy":
        from .easy import decide as easy_decide

        return easy_decide(view, _rng(view, seed))
    if level == "basic":
        from .normal import decide as basic_decide

        return basic_decide(view)
    from .strong import decide_strong

    return decide_strong(view, seed=seed)


__all__ = ["LEVELS", "Action", "decide"]
