"""Sampled worlds for the strong bot: the hidden cards dealt consistently with the view,
weighted by how well they fit the bids, and played out by the basic policy."""

from __future__ import annotations

import random
from typing import Any, Final

from spades.engine import cards
from spades.engine.cards import parse_card

from .basic import choose_card
from .bidding import estimate_tricks, nil_danger
from .state import NIL, PlayState, bits, winning_index

# The engine's tables as Final constants of the module: a compiled build reads them from C
# variables rather than the module's dict.
SPADES: Final[int] = cards.SPADES
SUIT_MASKS: Final[tuple[int, ...]] = cards.SUIT_MASKS
SUIT_OF: Final[tuple[int, ...]] = cards.SUIT_OF


def original_played(view: dict[str, Any]) -> list[int]:
    """Cards each seat has played this hand (to rebuild the hands they bid on)."""
    out = [0, 0, 0, 0]
    for trick in view.get("tricks") or []:
        for e in trick["cards"]:
            out[int(e["seat"])] |= 1 << parse_card(e["card"])
    cur = view.get("current_trick")
    if cur:
        for e in cur.get("cards") or []:
            out[int(e["seat"])] |= 1 << parse_card(e["card"])
    return out


# The random draws of the search as `random.Random` makes them (the same numbers from the same
# generator, so a seed gives the same decision), written out so that a compiled build
# (`spades.bots.native`) runs them compiled too instead of calling back into Python.


def randbelow(rng: random.Random, n: int) -> int:
    """`rng._randbelow(n)` (n > 0): the same draws from the generator, the same number."""
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def shuffle(rng: random.Random, cards: list[int]) -> None:
    """`rng.shuffle(cards)`, draw for draw (`randbelow` written out, the method bound once)."""
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j: int = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def choice(rng: random.Random, options: tuple[float, ...]) -> float:
    """`rng.choice(options)`, draw for draw."""
    return options[randbelow(rng, len(options))]


def sample_world(
    st: PlayState, seat: int, sizes: list[int], rng: random.Random
) -> list[int] | None:
    """Deal the hidden cards to the other seats: right counts, no card in a shown-out suit."""
    hidden = st.deck & ~st.played & ~st.hands[seat]
    cards = bits(hidden)
    others = [s for s in range(4) if s != seat]
    voids = st.voids
    # Who may hold a card depends only on its suit (the seats that have not shown out).
    by_suit = [[s for s in others if not voids[s] >> suit & 1] for suit in range(4)]
    counts = [len(by_suit[suit]) for suit in range(4)]
    # The same number of seats for every suit: the order below is the shuffled one.
    plain = counts[0] == counts[1] == counts[2] == counts[3]
    random = rng.random
    for _attempt in range(20):
        shuffle(rng, cards)
        # Most constrained cards first: those fewer seats can hold (a stable sort by the
        # number of seats, written as its buckets: 0 to 3 seats, each in the shuffled order).
        order = cards if plain else [c for n in range(4) for c in cards if counts[SUIT_OF[c]] == n]
        room = [sizes[s] if s != seat else 0 for s in range(4)]
        h0 = h1 = h2 = h3 = 0  # the hands dealt (locals: no int boxed per card)
        ok = True
        for c in order:
            # A seat with room left, in proportion to its room (no list built per card).
            seats = by_suit[SUIT_OF[c]]
            total = 0
            for s in seats:
                left = room[s]
                if left > 0:
                    total += left
            if not total:
                ok = False
                break
            r: float = random()
            pick = r * float(total)
            chosen = -1
            for s in seats:
                left = room[s]
                if left > 0:
                    chosen = s
                    pick -= float(left)
                    if pick < 0:
                        break
            bit = 1 << c
            if chosen == 0:
                h0 |= bit
            elif chosen == 1:
                h1 |= bit
            elif chosen == 2:
                h2 |= bit
            else:
                h3 |= bit
            room[chosen] = room[chosen] - 1
        if ok:
            hands = [h0, h1, h2, h3]
            hands[seat] = st.hands[seat]
            return hands
    return None


# How far a player's bid strays from the trick estimate of the hand it bid on (tricks), and
# how much a nil bidder's sampled hand loses per point of nil danger (log weight).
BID_SIGMA = 1.4
NIL_WEIGHT = 0.8


def bid_fit(hand: int, bid: int) -> float:
    """Log-likelihood-ish weight of a 13-card hand given its bid."""
    if bid < 0:
        return 0.0
    if bid == NIL:
        danger = nil_danger(hand)
        return -NIL_WEIGHT * min(danger, 6.0)
    diff = estimate_tricks(hand) - bid
    return -(diff * diff) / (2 * BID_SIGMA * BID_SIGMA)


def nil_safe_moves(st: PlayState, seat: int, legal: int) -> int:
    """For a seat whose nil still stands: the legal cards that do not win the trick so far.

    When every legal card wins (or the seat leads), all of them; a nil bidder never takes a
    trick it could have ducked.
    """
    if st.bids[seat] != NIL or st.tricks_won[seat] or not st.trick:
        return legal
    trick = st.trick
    win = trick[winning_index(trick)]
    losing = 0
    for card in bits(legal):
        suit = SUIT_OF[card]
        beats = (suit == SUIT_OF[win] and card > win) or (suit == SPADES and SUIT_OF[win] != SPADES)
        if not beats:
            losing |= 1 << card
    return losing or legal


def distinct_moves(moves: list[int], hand: int, hidden: int) -> list[int]:
    """One card per group of equal effect: touching cards of a suit (no hidden card between
    them) win and lose the same tricks, so only the lowest of each group is searched."""
    out: list[int] = []
    for card in moves:
        if out and SUIT_OF[out[-1]] == SUIT_OF[card]:
            between = SUIT_MASKS[SUIT_OF[card]] & ((1 << card) - 1) & ~((2 << out[-1]) - 1)
            if not between & hidden:
                continue
        out.append(card)
    return out


# Opponent models: every other seat of a sampled world plays the basic plan, with a share of
# careless cards drawn per sample (the table is not four copies of `basic`); a seat whose nil
# stands always plays it safely, and partners and opponents of a nil cover and attack it.
CARELESS = (0.0, 0.0, 0.08, 0.15)


# When the searching side's own nil stands, every opponent in a sampled world hunts it as a
# determined attacker does, whatever its own contract needs: low in front of the nil bidder,
# and under the nil bidder's card when it is winning (basic attacks only while its own
# contract is safe). Covering choices tuned to basic's attack alone left nils caught by
# other players (docs/bots.md has the measurement).


def hunt_card(world: PlayState, actor: int, target: int) -> int:
    """A hunter's card against the standing nil of `target`, or -1 to play basic's card."""
    trick = world.trick
    if not trick:
        return -1  # leads as basic does
    legal = world.legal(actor)
    led = SUIT_OF[trick[0]]
    follow = legal & SUIT_MASKS[led]
    if not follow:
        return -1
    at = winning_index(trick)
    win = trick[at]
    if SUIT_OF[win] != led:
        return -1  # trumped: the nil bidder's card of the suit cannot win
    if (world.leader + at) & 3 == target:
        under = follow & ((1 << win) - 1)  # the highest card that still loses to the nil's
        return under.bit_length() - 1 if under else -1
    if 0 < (target - actor) & 3 <= 3 - len(trick):
        return (follow & -follow).bit_length() - 1  # low in front of the nil
    return -1


def rollout(
    world: PlayState,
    seat: int,
    noise: list[float],
    rng: random.Random,
    hunters: list[int] | None = None,
) -> None:
    """Play the hand out: basic's plan for every seat, the others careless now and then, and
    with `hunters`, seat s hunting the standing nil `hunters[s]` (-1: basic's attack)."""
    random = rng.random  # bound once
    while world.tricks_done < 13:
        actor = (world.leader + len(world.trick)) & 3  # world.to_act, without the property
        if hunters is not None:
            target = hunters[actor]
            if target >= 0 and world.tricks_won[target] == 0:
                card = hunt_card(world, actor, target)
                if card >= 0:
                    world.play(card)
                    continue
        eps = noise[actor]
        if eps and random() < eps:
            legal = nil_safe_moves(world, actor, world.legal(actor))
            cards = bits(legal)
            r: float = random()
            world.play(cards[int(r * float(len(cards)))])  # (float: as Python multiplies)
        else:
            world.play(choose_card(world, actor))
