"""Today's `strong` (Hard) bot, frozen as it was before issue 61's work on its cost.

A copy of spades.bots.strong and every module of the bots it reads (card_search, bid_search,
worlds, outcome, basic, bidding, blind, state), so that changes to the live Hard and to
basic/Normal are measured against a fixed opponent (`python -m bench.strong_ab`). Imported
by the benches only. Do not edit.
"""

from .strong import decide_strong

__all__ = ["decide_strong"]
