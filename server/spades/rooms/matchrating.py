"""The rating quick play matches players by: `rating_for_matching`.

Today every player has the same rating, `DEFAULT_RATING`, so quick play seats whoever waits
(the window only matters once ratings differ). Ratings (issue 57: OpenSkill, one per mode)
replace this function's body with the player's stored rating for `mode`, on the scale the
window settings use (`SPADES_QUICKPLAY_WINDOW` and `SPADES_QUICKPLAY_WIDEN` are rating
points: with a conservative rating shown around 1500, the defaults of 100 points at once
and 10 more per second waited fit); nothing else of quick play changes. The quick play
service takes the lookup as a callable (`QuickPlay.rating`), so a test may give its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from spades.store.protocol import Store

DEFAULT_RATING = 1500.0

RatingLookup = Callable[[str, str], Awaitable[float]]


async def rating_for_matching(player_id: str, mode: str, *, store: Store | None = None) -> float:
    """The rating `player_id` is matched by in `mode` (`partnership` or `individual`): for
    now the default for everyone. `store` is where ratings will be read from."""
    del player_id, mode, store  # ratings are not stored yet
    return DEFAULT_RATING
