"""A nil's chance against a hunting table, by rollouts from the bidding position.

The static odds (`bidding.nil_odds`) were fitted on basic's attack; Hard's attack sets more
of the nils they call safe. This estimate deals the hidden hands as the bid search does
(weighted by the bids already made), lets the later seats bid as basic would, and plays the
hand out as Hard's rollouts play a standing nil: the nil bidder ducks by basic's rule, its
partner covers, and every opponent hunts it (`worlds.hunt_card`). The share of deals on
which the nil bidder takes no trick is the estimate (docs/bots.md, "Hard's nils against
Hard"; `strong.NIL_SEARCH_MIN` keeps a nil only at 0.7 or more, 0 switches it off).
"""

from __future__ import annotations

import math
import random
from typing import Any

from .bidding import BidContext, bid_number
from .state import NIL, UNKNOWN, PlayState
from .worlds import CARELESS, bid_fit, choice, rollout, sample_world


def nil_chance(
    view: dict[str, Any],
    st: PlayState,
    rng: random.Random,
    samples: int,
    careless: bool = True,
) -> float:
    """The weighted share of sampled deals on which the seat's nil survives a hunting
    attack (the seat bids nil now; the seats after it bid as basic would).

    With `careless`, the other seats play a careless card now and then as in the search's
    rollouts (`worlds.CARELESS`; a hunter's card overrides it); without, none.
    """
    seat = int(view["seat"])
    partnership = st.partnership
    ctx = BidContext.of(view)
    bags = list(view.get("bags") or [])
    nil_allowed = any(a.get("bid") == "nil" for a in view["legal"])
    first = (int(view.get("dealer", 0)) + 1) & 3
    order = [(first + k) & 3 for k in range(4)]
    later = order[order.index(seat) + 1 :]
    side_step = 1 if partnership else 3  # an opponent sits an odd offset away; alone, any
    hunters = [seat if (other - seat) & side_step else -1 for other in range(4)]
    sizes = [13, 13, 13, 13]
    made = 0.0
    total = 0.0
    for _ in range(samples):
        hands = sample_world(st, seat, sizes, rng)
        if hands is None:
            break
        log_w = 0.0
        for s in range(4):
            if s != seat and st.bids[s] != UNKNOWN and not st.blind[s]:
                log_w += bid_fit(hands[s], st.bids[s])
        weight = math.exp(max(log_w, -30.0))
        bids = list(st.bids)
        bids[seat] = NIL
        for s in later:
            s_side = s % 2 if partnership else s
            s_bags = bags[s_side] if s_side < len(bags) else 0
            bids[s] = bid_number(hands[s], s, bids, partnership, s_bags, nil_allowed, ctx)
        world = st.copy()
        world.hands = hands[:]
        world.bids = bids
        world.prepare()
        world.leader = first
        if careless:
            noise = [0.0 if s == seat else choice(rng, CARELESS) for s in range(4)]
        else:
            noise = [0.0, 0.0, 0.0, 0.0]
        rollout(world, seat, noise, rng, hunters)
        total += weight
        if world.tricks_won[seat] == 0:
            made += weight
    return made / total if total > 0 else 0.0
