"""Normal alone (individual mode, issue 61): play for the game, not only for the points.

Alone, a player wins only by being the highest when someone reaches the target, and a made
nil (+100) is worth three or four contracts. Normal adds to the basic policy:

- **nil odds alone** (`individual_nil_odds`): basic's fitted odds refitted with what the
  bidder sees at the table (the bids made before it) and the hand's low cards (side suits
  with no card under a six, side cards from the two to the four); `normal.NIL_P_MIN` is a
  floor under them, so nils are made three times in four even where the score lowers
  `nil_pays`'s margin;
- **the nil bidder's lead** (`nil_lead`): the low card with the fewest unseen cards under it;
  and its follow or throw (`own_nil_card`): the highest card under the trick's winner, else
  the lowest; void, the safe card likeliest to be forced later;
- **the threat** (`threat_seat`): another player who reaches the target with the contract
  it bid this hand and would end above Normal's own projected score. Making it ends the
  game lost, so bags no longer matter: Normal plays to win every trick the threat could
  take (a copy of the view asks for all the tricks left), and hunts its nil while it stands.
  Once the threat has played to the trick and is beaten, Normal plays its usual card;
- **the score leader** (`leader_to_set`): with its own contract made, Normal goes for the
  set of the best other score (above its own) once that player needs all but
  `LEADER_MARGIN` of the tricks left (basic: all of them, against anyone).
- **the end of the game** (`threat_score`): when another player's made bid (a player still to
  bid counted at `DESPERATE_EST` tricks) takes it to the target above what Normal's bid
  makes, that bid loses the game however many points it scores: Normal bids nil at lower
  odds (`desperate_nil`, `DESPERATE_P_MIN`) when a made nil passes it, else the least bid up
  to `DESPERATE_OVER` tricks over its count that passes it (`desperate_bid`).

Each rule is a few integer operations on the seat's view.
"""

from __future__ import annotations

import math

from spades.engine.cards import SPADE_MASK, SPADES, SUIT_MASKS, SUIT_OF
from spades.engine.fast import legal_mask

from .basic import choose_card, nil_follow
from .bidding import BidContext, nil_odds
from .normal_nil import _below, _high, _low, hunt_card
from .state import NIL, UNKNOWN, PlayState, bits, winning_index

# Knobs (measured with `python -m bench.basic_ab --b frozen --mode individual`; docs/bots.md).
THREAT_PLAY = True  # play to set the player who wins the game with its contract
THREAT_DUCK_BEATEN = True  # the threat played and is beaten: the usual card
# A nil's odds alone, refitted on the logit of `nil_odds` (logistic regression over 2,604
# nils Normal bid against three frozen basic players at a loose margin, seeds 1400-2000;
# docs/bots.md): the bids already made at the table (a later nil knows them), the side
# suits whose lowest card is a six or higher (no card to duck with) and the side cards from
# the two to the four.
NIL_REFIT = True
NIL_Z = (-0.371, 0.773, 0.16, -0.762, 0.201)  # constant, logit, bids made, high suits, lows


# Desperation (the last hand, in effect): another player reaches the target with its bid (a
# player still to bid is counted at `DESPERATE_EST` tricks) and ends above what our bid makes,
# while a made nil of ours would still end above it: the bid loses the game when they make
# theirs, so a nil at these odds or better is bid whatever it pays in points. 0.45 since the
# own nil is played by rule (more nils made, so room for more desperate ones): 24 more games
# won of 12,800 on four deal sets than at 0.5, none fewer on any set (docs/bots.md).
DESPERATE_P_MIN = 0.45  # (2.0: off)
DESPERATE_EST = 3


DESPERATE_OVER = 2  # ... and a bid up to this many tricks over the count when that passes it


def threat_score(ctx: BidContext, seat: int, bids: list[int], n: int) -> int:
    """Alone: the best score another player reaches the target with by making its bid (or,
    still to bid, `DESPERATE_EST` tricks) above what our bid `n` makes; 0 when none does."""
    scores = ctx.scores
    if len(scores) < 4 or seat >= 4:
        return 0
    mine = scores[seat] + 10 * n
    best = 0
    for s in range(4):
        if s == seat:
            continue
        b = bids[s]
        theirs = scores[s] + (
            10 * DESPERATE_EST if b == UNKNOWN else ctx.nil_value if b == NIL else 10 * b
        )
        if theirs >= ctx.target and theirs > mine and theirs > best:
            best = theirs
    return best


def desperate_nil(ctx: BidContext, seat: int, bids: list[int], n: int, p: float) -> bool:
    """A nil with odds `p` (at least `DESPERATE_P_MIN`) when bidding `n` loses the game to
    another player's made bid and a made nil would not."""
    if p < DESPERATE_P_MIN:
        return False
    need = threat_score(ctx, seat, bids, n)
    return 0 < need < ctx.scores[seat] + ctx.nil_value


SAFE_ALONE = False  # one trick less when that still ends the game ours, all bids made


def desperate_bid(ctx: BidContext, seat: int, bids: list[int], n: int) -> int:
    """`n`, or the least bid up to `DESPERATE_OVER` more that passes the threat's score; with
    `SAFE_ALONE`, one less when it still takes us to the target above every other bid."""
    need = threat_score(ctx, seat, bids, n)
    if need <= 0:
        safe = n > 1 and ctx.scores[seat] + 10 * (n - 1) >= ctx.target
        if SAFE_ALONE and safe and threat_score(ctx, seat, bids, n - 1) <= 0:
            return n - 1
        return n
    if DESPERATE_OVER <= 0:
        return n
    m = (need - ctx.scores[seat]) // 10 + 1
    room = 13 - sum(b for b in bids if b > 0)
    return m if n < m <= min(n + DESPERATE_OVER, room) else n


def nil_shape(hand: int) -> tuple[int, int]:
    """(side suits whose lowest card is a six or higher, side cards from the two to the four)."""
    high = lows = 0
    for suit in range(3):
        cards = hand & SUIT_MASKS[suit]
        if not cards:
            continue
        low = (cards & -cards).bit_length() - 1 - 13 * suit
        if low >= 4:
            high += 1
        lows += (cards & (0b111 << 13 * suit)).bit_count()
    return high, lows


def individual_nil_odds(hand: int, seat: int, bids: list[int]) -> float:
    """The chance a nil alone is made: `nil_odds` refitted with the bids made before the
    seat and the hand's low cards (`NIL_Z`)."""
    p = nil_odds(hand, False)
    if not NIL_REFIT or p <= 0.0 or p >= 1.0:
        return p
    made = sum(1 for s, b in enumerate(bids) if s != seat and b != UNKNOWN)
    high, lows = nil_shape(hand)
    c, k, per_bid, per_high, per_low = NIL_Z
    z = c + k * math.log(p / (1.0 - p)) + per_bid * made + per_high * high + per_low * lows
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def projected(st: PlayState, seat: int) -> int:
    """The seat's score once this hand is scored with its bid made (a nil standing)."""
    bid = st.bids[seat]
    score = st.scores[seat]
    if bid == NIL:
        return score + (100 if st.tricks_won[seat] == 0 else -100)
    if bid > 0:
        won = st.tricks_won[seat]
        return score + 10 * bid + max(0, won - bid)
    return score


def threat_seat(st: PlayState, seat: int) -> int:
    """The other player who wins the game if it makes its bid this hand (its contract or
    nil still to be decided, and its score then the target and above Normal's), or -1."""
    if st.partnership or len(st.scores) < 4:
        return -1
    mine = projected(st, seat)
    best = -1
    best_score = -(10**9)
    for s in range(4):
        if s == seat:
            continue
        bid = st.bids[s]
        if bid == NIL:
            if st.tricks_won[s]:
                continue
        elif bid <= 0 or st.tricks_won[s] >= bid:
            continue
        p = projected(st, s)
        if p >= st.target and p >= mine and p > best_score:
            best = s
            best_score = p
    return best


NIL_LEAD = True  # our standing nil leads the low card with the fewest unseen cards under it
# ... and follows or throws by `own_nil_card` (False: basic's nil play), as Hard alone does.
OWN_NIL_RULE = True


def nil_lead(st: PlayState, seat: int, legal: int) -> int:
    """The nil bidder's lead: of each suit's lowest card (side suits first), the one with
    the fewest unseen cards under it (fewest ways for the others to duck it), then the most
    unseen above it; -1 when the seat must follow."""
    if st.trick:
        return -1
    hidden = st.deck & ~st.played & ~st.hands[seat]
    pool = legal & ~SPADE_MASK or legal
    best = -1
    best_key = (99, 0)
    for suit in range(4):
        cards = pool & SUIT_MASKS[suit]
        if not cards:
            continue
        low = (cards & -cards).bit_length() - 1
        suit_hidden = hidden & SUIT_MASKS[suit]
        under = (suit_hidden & ((1 << low) - 1)).bit_count()
        key = (under, -(suit_hidden >> low).bit_count())
        if key < best_key:
            best_key = key
            best = low
    return best


def own_nil_card(st: PlayState, seat: int) -> int:
    """The seat's own standing nil alone, by rule (Normal plays its nil alone this way, see
    `OWN_NIL_RULE`, and so does Hard, see `strong.OWN_NIL_RULE_ALONE`): the lead of
    `nil_lead`; following, the highest card under the trick's winner (any card of the led
    suit when the trick is trumped), else the lowest (the highest when last: the trick is
    taken anyway); void, of the cards that cannot take the trick (side cards, and spades
    under a winning spade), the one likeliest to be forced later: the most unseen cards of
    its suit under it, less the seat's own cards under it."""
    hand = st.hands[seat]
    trick = st.trick
    legal = legal_mask(hand, trick[0] if trick else -1, st.broken, st.must_break)
    if not trick:
        return nil_lead(st, seat, legal)
    card = nil_follow(trick, legal)
    if card >= 0:
        return card
    win = trick[winning_index(trick)]
    last = len(trick) == 3
    safe = legal & ~SPADE_MASK
    if SUIT_OF[win] == SPADES:
        safe |= legal & _below(win)
    if not safe:
        return _high(legal) if last else _low(legal)
    hidden = st.deck & ~st.played & ~hand
    best = -1
    best_key = -(1 << 30)
    for card in bits(safe):
        below = _below(card)
        # (the card number breaks ties: the higher card goes first)
        key = ((hidden & below).bit_count() - (hand & below).bit_count()) * 64 + card
        if key > best_key:
            best_key = key
            best = card
    return best


LEADER_MARGIN = 1  # contract made: set the score leader once it needs all but this many tricks


def leader_to_set(st: PlayState, seat: int) -> int:
    """The best score but Normal's, above Normal's, its contract within `LEADER_MARGIN` of
    the tricks left, while Normal's own contract is made; or -1."""
    if LEADER_MARGIN < 0 or st.partnership or len(st.scores) < 4 or st.need(seat) > 0:
        return -1
    leader = max((s for s in range(4) if s != seat), key=lambda s: st.scores[s])
    need = st.need(leader)
    if st.scores[leader] <= st.scores[seat] or need <= 0 or st.bids[leader] == NIL:
        return -1
    return leader if 13 - st.tricks_done - need <= LEADER_MARGIN else -1


def individual_card(st: PlayState, seat: int) -> int:
    """Normal's card alone: its nil's lead, the threat's set, else -1 (the usual card)."""
    if seat in st.nil_seats and st.tricks_won[seat] == 0:
        if NIL_LEAD and not st.trick:
            return nil_lead(st, seat, legal_mask(st.hands[seat], -1, st.broken, st.must_break))
        if OWN_NIL_RULE and st.trick:
            return own_nil_card(st, seat)
        return -1  # our own nil comes first
    if not THREAT_PLAY:
        return -1
    target = threat_seat(st, seat)
    if target < 0:
        target = leader_to_set(st, seat)
        if target < 0:
            return -1
    trick = st.trick
    legal = legal_mask(st.hands[seat], trick[0] if trick else -1, st.broken, st.must_break)
    if st.bids[target] == NIL:
        if legal & (legal - 1):
            card = hunt_card(st, seat, target, legal)
            if card >= 0:
                return card
        return -1
    if THREAT_DUCK_BEATEN and trick:
        played = (target - st.leader) & 3 < len(trick)
        if played and (st.leader + winning_index(trick)) & 3 != target:
            return -1
    view = st.copy()
    view.contract = st.contract[:]
    view.contract[seat] = st.tricks_won[seat] + 13 - st.tricks_done
    return choose_card(view, seat)
