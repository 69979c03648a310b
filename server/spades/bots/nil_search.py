"""A nil's chance against a hunting table, by rollouts from the bidding position.

The static odds (`bidding.nil_odds`) were fitted on basic's attack; Hard's attack sets more
of the nils they call safe. This estimate deals the hidden hands as the bid search does
(weighted by the bids already made), lets the later seats bid as basic would, and plays the
hand out as Hard's rollouts play a standing nil: the nil bidder ducks by basic's rule, its
partner covers, and every opponent hunts it (`worlds.hunt_card`). The share of deals on
which the nil bidder takes no trick is the estimate (docs/bots.md, "Hard's nils against
Hard"; `strong.NIL_SEARCH_MIN` keeps a nil only at 0.7 or more with a partner,
`strong.NIL_SEARCH_MIN_ALONE` at 0.8 or more alone; 0 switches a bar off).
"""

from __future__ import annotations

import random
from typing import Any

from .bid_search import BidDeals
from .state import NIL, PlayState
from .worlds import CARELESS, choice, sample_world


def nil_chance(
    view: dict[str, Any],
    st: PlayState,
    rng: random.Random,
    samples: int,
    careless: bool = True,
) -> float:
    """The weighted share of sampled deals on which the seat's nil survives a hunting
    attack (the seat bids nil now; the seats after it bid as basic would).

    The deals are the bid search's (`bid_search.BidDeals`: dealt by `worlds.sample_world`,
    weighted by the bids made, the later seats bidding as basic would). With `careless`, the
    other seats play a careless card now and then as in the search's rollouts
    (`worlds.CARELESS`; a hunter's card overrides it); without, none.
    """
    seat = int(view["seat"])
    nil_allowed = any(a.get("bid") == "nil" for a in view["legal"])
    deals = BidDeals(view, st, seat, nil_allowed)
    side_step = 1 if st.partnership else 3  # an opponent sits an odd offset away; alone, any
    hunters = [seat if (other - seat) & side_step else -1 for other in range(4)]
    sizes = [13, 13, 13, 13]
    made = 0.0
    total = 0.0
    for _ in range(samples):
        hands = sample_world(st, seat, sizes, rng)
        if hands is None:
            break
        weight = deals.weight(hands)
        if careless:
            noise = [0.0 if s == seat else choice(rng, CARELESS) for s in range(4)]
        else:
            noise = [0.0, 0.0, 0.0, 0.0]
        deals.play(hands, NIL, noise, rng, hunters)
        total += weight
        if deals.world.tricks_won[seat] == 0:
            made += weight
    return made / total if total > 0 else 0.0
