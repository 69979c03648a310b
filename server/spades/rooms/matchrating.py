"""The rating quick play matches players by: `rating_for_matching`.

A player's OpenSkill estimate for the mode on the shown scale (rating.py:
`matching_rating`, 1000 + 20 mu; a player never rated: `DEFAULT_RATING`, 1500). The window
settings are in these points (`SPADES_QUICKPLAY_WINDOW` and `SPADES_QUICKPLAY_WIDEN`: the
defaults, 100 points at once and 10 more per second waited, are about 1.2 and 0.12 of
OpenSkill's beta, the skill gap of one "class"). Quick play matches by the estimate, not
the conservative shown rating, so that a newcomer is matched as the average player they
are assumed to be. The quick play service reads it with the join's other checks
(`Store.queue_facts`, one read) unless it is given a lookup (`QuickPlay.rating`), as a test
may.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from spades.store.protocol import Store, StoredRating

from .rating import MU, matching_rating

DEFAULT_RATING = matching_rating(MU)

RatingLookup = Callable[[str, str], Awaitable[float]]


async def rating_for_matching(player_id: str, mode: str, *, store: Store | None = None) -> float:
    """The rating `player_id` is matched by in `mode` (`partnership` or `individual`):
    their stored rating's estimate, the default for a player never rated (or no store)."""
    if store is None:
        return DEFAULT_RATING
    return matched_by((await store.ratings([player_id], mode)).get(player_id))


def matched_by(stored: StoredRating | None) -> float:
    """The rating a stored rating is matched by (the default for none)."""
    return DEFAULT_RATING if stored is None else matching_rating(stored.mu)
