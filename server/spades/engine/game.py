"""The game state machine: deal -> bidding -> 13 tricks -> scored -> next deal or game over.

Every action comes as a check, a query and a doer: `verify(seat, action)` raises the
specific `ActionError`, `can(seat, action)` answers yes or no, `apply(seat, action)` does it.
Actions are the JSON-ready dicts a client sends (see `legal_actions`). The system action
`{"type": "time_up"}` (seat None) is the game clock running out.
"""

from __future__ import annotations

import functools
import secrets
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import errors
from .cards import (
    ALL_CARDS,
    DEUCE_DECK,
    JOKER_DECK,
    NON_SPADE_MASK,
    PROMOTED,
    RANKS_IN,
    SPADE_MASK,
    SPADES,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    CardParseError,
    as_dealt,
    card_text,
    cards_of,
    deck_of,
    mask_of,
    parse_card,
    sort_for_display,
)
from .fast import (
    FastHand,
    deal_commitment,
    deal_from_seed,
    first_dealer_from_seed,
    hand_seed,
)
from .rules import BLIND_BID_LEAST, Rules
from .scoring import NIL, game_winner, score_hand, sets_in_row_after

Action = dict[str, Any]
RECORD_FORMAT = "spades-game/1"


@dataclass(frozen=True, slots=True)
class _Bid:
    tricks: int  # 0 = nil
    blind: bool = False


@dataclass(frozen=True, slots=True)
class _Look:
    pass


@dataclass(frozen=True, slots=True)
class _Play:
    card: int


@dataclass(frozen=True, slots=True)
class _TimeUp:
    pass


_Op = _Bid | _Look | _Play | _TimeUp


def format_bid(tricks: int, blind: bool) -> int | str:
    if tricks == NIL:
        return "blind nil" if blind else "nil"
    return tricks


class Game:
    """One game of Spades under one `Rules`, from the first deal to a winner."""

    def __init__(
        self,
        rules: Rules,
        *,
        seed: str,
        first_dealer: int,
        deals: Sequence[Sequence[int]] = (),
        scores: Sequence[int] | None = None,
        bags: Sequence[int] | None = None,
    ) -> None:
        if first_dealer not in range(4):
            raise ValueError(f"dealer must be a seat 0..3, not {first_dealer!r}")
        n = rules.sides
        self.rules = rules
        self._rules_dict = rules.to_dict()  # views repeat it on every message: build it once
        self.seed = seed
        self.first_dealer = first_dealer
        deck = deck_of(rules.jokers, rules.deuces)
        self.explicit_deals: list[tuple[int, ...]] = [_check_deal(d, deck) for d in deals]
        self.start_scores = tuple(scores) if scores is not None else (0,) * n
        self.start_bags = tuple(bags) if bags is not None else (0,) * n
        if len(self.start_scores) != n or len(self.start_bags) != n:
            raise ValueError(f"scores and bags need {n} entries in {rules.mode} mode")
        self.scores: list[int] = list(self.start_scores)
        self.bags: list[int] = list(self.start_bags)
        self.sets_in_row: tuple[int, ...] = (0,) * n  # for `set_out_after`
        # The view's lists, made when first shown after they change and then shared by every
        # view until the next change (None: make it again). A broadcast compares each view
        # with the one before, and an unchanged key is then an identity check.
        self._scores_view: tuple[list[int], list[int]] | None = None
        self.history: list[dict[str, Any]] = []
        self._history_view: list[dict[str, Any]] = []  # as _tricks_view: new per hand, shared
        # Every accepted action as a 16-bit code (`_op_code`): a game to 500 between weak
        # players can run to a hundred hands, and as (seat, dict) pairs its actions were
        # 13.9 KB of the 15.6 KB a hand kept, and a tracked tuple per action for the GC.
        self._log = array("H")
        self._last: tuple[int | None, Action] | None = None  # `last_action`, once decoded
        self.time_is_up = False
        self.winner: int | None = None
        self.hand_number = 0
        self.dealer = (first_dealer - 1) % 4
        # The latest finished trick, kept across the deal so the 13th trick stays visible.
        self.last_trick: dict[str, Any] | None = None
        self._start_hand()

    # --- construction ---------------------------------------------------------------

    @classmethod
    def new(
        cls,
        rules: Rules | None = None,
        *,
        seed: str | int | None = None,
        dealer: int | None = None,
    ) -> Game:
        """A new game. Without a seed, a fresh secret one; without a dealer, one from the seed."""
        rules = rules or Rules()
        master = secrets.token_hex(16) if seed is None else str(seed)
        first = first_dealer_from_seed(master) if dealer is None else dealer
        return cls(rules, seed=master, first_dealer=first)

    @classmethod
    def from_deal(
        cls,
        rules: Rules,
        hands: Sequence[Sequence[int | str]],
        dealer: int,
        *,
        scores: Sequence[int] | None = None,
        bags: Sequence[int] | None = None,
        seed: str | int | None = None,
    ) -> Game:
        """A game whose first hand is the given deal (later hands come from the seed)."""
        deal = [mask_of(as_dealt(_as_card(c), rules.deuces) for c in hand) for hand in hands]
        master = secrets.token_hex(16) if seed is None else str(seed)
        return cls(rules, seed=master, first_dealer=dealer, deals=[deal], scores=scores, bags=bags)

    # --- the hand in progress ---------------------------------------------------------

    def _start_hand(self) -> None:
        self.hand_number += 1
        self.dealer = (self.dealer + 1) % 4
        if self.hand_number <= len(self.explicit_deals):
            self.hand_seed: str | None = None
            dealt = list(self.explicit_deals[self.hand_number - 1])
            self.commitment: str | None = None
        else:
            self.hand_seed = hand_seed(self.seed, self.hand_number)
            dealt = deal_from_seed(
                self.hand_seed, _DECK_CARDS[self.rules.jokers, self.rules.deuces]
            )
            self.commitment = deal_commitment(self.hand_seed)
        self.dealt = tuple(dealt)
        self.phase = "bidding"
        self.to_act: int | None = (self.dealer + 1) % 4
        self.bids: list[_Bid | None] = [None, None, None, None]
        self.looked = [False, False, False, False]
        # Who may bid blind this hand (before looking): blind nil, a blind number (6+).
        self.blind_nil_ok = [self._trails_enough(seat) for seat in range(4)]
        self.blind_bid_ok = [self._trails_for_blind_bid(seat) for seat in range(4)]
        self.blind_eligible = [
            a or b for a, b in zip(self.blind_nil_ok, self.blind_bid_ok, strict=True)
        ]
        self.play = FastHand(
            dealt, (self.dealer + 1) % 4, must_break=self.rules.spades_must_be_broken
        )
        self.trick_log: list[tuple[int, tuple[int, ...], int]] = []  # (leader, cards, winner)
        self._tricks_view: list[dict[str, Any]] = []  # trick_log formatted once for views
        # Each seat's hand as last shown (mask, sorted texts): a hand changes only when its
        # owner plays, and a busy server shows it after every action (`_shown_hand`).
        self._shown: list[tuple[int, tuple[str, ...]]] = [(-1, ())] * 4
        self._bids_view: tuple[list[Any], list[bool]] | None = None
        self._play_view: tuple[list[int], list[int], dict[str, Any] | None] | None = None

    def _trails_enough(self, seat: int) -> bool:
        if not self.rules.blind_nil or self.rules.forced_bids:
            return False
        side = self.rules.side_of(seat)
        others = max(s for i, s in enumerate(self.scores) if i != side)
        return others - self.scores[side] >= self.rules.blind_nil_deficit

    def _trails_for_blind_bid(self, seat: int) -> bool:
        margin = self.rules.blind_bid_deficit
        if not margin or self.rules.forced_bids:
            return False
        side = self.rules.side_of(seat)
        others = max(s for i, s in enumerate(self.scores) if i != side)
        return others - self.scores[side] >= margin

    def blind_nil_open(self, seat: int) -> bool:
        """True while `seat` may still bid blind (nil, or a number under `blind_bid_deficit`)
        and has not looked (its cards stay hidden)."""
        return (
            self.phase == "bidding"
            and self.blind_eligible[seat]
            and not self.looked[seat]
            and self.bids[seat] is None
        )

    @property
    def hands(self) -> list[int]:
        """Current hand masks per seat (server side only; never put these in a view)."""
        return self.play.hands

    @property
    def tricks_won(self) -> list[int]:
        return self.play.tricks_won

    @property
    def spades_broken(self) -> bool:
        return self.play.broken

    @property
    def action_count(self) -> int:
        """How many actions the game has accepted (the room's `seq`)."""
        return len(self._log)

    @property
    def actions(self) -> list[tuple[int | None, Action]]:
        """Every accepted action as (seat, action as recorded), oldest first; built on each
        call from the compact log, so use `action_count` for the count."""
        return [_code_action(code) for code in self._log]

    @property
    def last_action(self) -> tuple[int | None, Action] | None:
        """The latest accepted action as (seat, action as recorded); None before the first.
        Shared with the value `apply` returned: read-only."""
        last = self._last
        if last is None and self._log:
            last = self._last = _code_action(self._log[-1])
        return last

    # --- checks, queries, doers -------------------------------------------------------

    def verify(self, seat: int | None, action: Action) -> None:
        """Raise the specific `ActionError` if `seat` may not take `action` now."""
        self._check(seat, _parse(action, self.rules))

    def can(self, seat: int | None, action: Action) -> bool:
        try:
            self.verify(seat, action)
        except errors.ActionError:
            return False
        return True

    def apply(self, seat: int | None, action: Action) -> Action:
        """Take `action` for `seat`; returns the action as recorded. Raises `ActionError`."""
        op = _parse(action, self.rules)
        self._check(seat, op)
        recorded = _format_op(op)
        self._log.append(_op_code(seat, op))
        self._last = (seat, recorded)
        self._do(seat, op)
        return recorded

    def time_up(self) -> None:
        """The game clock ran out: finish this hand; the highest score wins (ties play on)."""
        self.apply(None, {"type": "time_up"})

    def _check(self, seat: int | None, op: _Op) -> None:
        if self.phase == "over":
            raise errors.GameOver("the game is over")
        if isinstance(op, _TimeUp):
            if seat is not None:
                raise errors.MalformedAction("time_up is sent by the game clock, not a seat")
            if self.time_is_up:
                raise errors.WrongPhase("time is already up")
            return
        if seat not in (0, 1, 2, 3):
            raise errors.MalformedAction(f"seat must be 0..3, not {seat!r}")
        if isinstance(op, _Look):
            if not self.blind_nil_open(seat):
                raise errors.NothingToLook("your cards are already shown")
            return
        if isinstance(op, _Bid):
            self._check_bid(seat, op)
            return
        assert isinstance(op, _Play)
        self._check_play(seat, op.card)

    def _check_bid(self, seat: int, bid: _Bid) -> None:
        if self.phase != "bidding":
            raise errors.WrongPhase("bidding is over for this hand")
        if seat != self.to_act:
            raise errors.NotYourTurn(f"it is seat {self.to_act}'s turn to bid")
        if bid.blind and bid.tricks != NIL:
            self._check_blind_bid(seat, bid.tricks)
            return
        if bid.blind:
            if self.rules.suicide and self._suicide_bids(seat)[0] is False:
                raise errors.BlindNilNotAllowed("suicide: your partner bid nil, so you may not")
            if self.least_bid(seat):
                raise errors.BlindNilNotAllowed(
                    f"your team must bid at least {self.rules.min_team_bid}"
                )
            if not self.rules.blind_nil:
                raise errors.BlindNilNotAllowed("blind nil is not played in this room")
            if self.looked[seat]:
                raise errors.BlindNilNotAllowed("you have looked at your cards this hand")
            if not self.blind_nil_ok[seat]:
                raise errors.BlindNilNotAllowed(
                    f"blind nil needs your side to trail by at least "
                    f"{self.rules.blind_nil_deficit} points"
                )
            return
        if self.blind_nil_open(seat):
            raise errors.MustLookFirst("look at your cards before bidding, or bid blind nil")
        if self.rules.forced_bids:
            self._check_forced(seat, bid)
            return
        if self.rules.suicide:
            self._check_suicide(seat, bid)
            return
        if bid.tricks == NIL and not self.rules.nil:
            raise errors.NilNotAllowed("nil is not played in this room")
        need = self.least_bid(seat)
        if need and bid.tricks < need:
            text = f"your team must bid at least {self.rules.min_team_bid}: bid {need} or more"
            if bid.tricks == NIL:
                raise errors.NilNotAllowed(text)
            raise errors.BidOutOfRange(text)

    def spades_held(self, seat: int) -> int:
        """The trumps (spades, and jokers) `seat` holds: its bid under whiz and mirror."""
        return (self.play.hands[seat] & SPADE_MASK).bit_count()

    def forced_bids(self, seat: int) -> tuple[int, ...]:
        """The bids whiz or mirror leave `seat` (0 = nil): nil or its spades (whiz), its
        spades (mirror); nil alone when it holds none."""
        held = self.spades_held(seat)
        if not held:
            return (NIL,)
        return (NIL, held) if self.rules.whiz else (held,)

    def _check_forced(self, seat: int, bid: _Bid) -> None:
        allowed = self.forced_bids(seat)
        if bid.tricks not in allowed:
            held = self.spades_held(seat)
            rule = "whiz: bid nil or" if self.rules.whiz else "mirror: bid"
            text = f"{rule} the {held} spades you hold" if held else "you hold no spade: bid nil"
            if bid.tricks == NIL:
                raise errors.NilNotAllowed(text)
            raise errors.BidOutOfRange(text)

    def blind_bids(self, seat: int) -> range:
        """The numbers `seat` may bid blind now (empty: none)."""
        if not self.blind_bid_ok[seat] or self.looked[seat]:
            return range(0)
        low = max(BLIND_BID_LEAST, self.least_bid(seat))
        if self.rules.suicide:
            least = self._suicide_bids(seat)[1]
            if least is None:
                return range(0)
            low = max(low, least)
        return range(low, 14)

    def _check_blind_bid(self, seat: int, tricks: int) -> None:
        if not self.rules.blind_bid_deficit:
            raise errors.BidOutOfRange("blind bids of a number are not played in this room")
        if self.looked[seat]:
            raise errors.BidOutOfRange("you have looked at your cards this hand")
        if not self.blind_bid_ok[seat]:
            raise errors.BidOutOfRange(
                f"a blind bid needs your side to trail by at least "
                f"{self.rules.blind_bid_deficit} points"
            )
        allowed = self.blind_bids(seat)
        if tricks not in allowed:
            low = f"{allowed.start} to 13" if allowed else "not open to you now"
            raise errors.BidOutOfRange(f"a blind bid is {low}")

    def _blind_ok(self, seat: int) -> bool:
        return not self.rules.suicide or self._suicide_bids(seat)[0]

    def _suicide_bids(self, seat: int) -> tuple[bool, int | None]:
        """Under suicide: may `seat` bid nil, and the least number it may bid (None: none).
        The first partner to bid chooses nil or a number; the second does the other."""
        partner = self.bids[(seat + 2) % 4]
        least = self.rules.suicide_min_bid
        if partner is None:
            return True, least
        return (False, least) if partner.tricks == NIL else (True, None)

    def _check_suicide(self, seat: int, bid: _Bid) -> None:
        nil_ok, least = self._suicide_bids(seat)
        if bid.tricks == NIL:
            if not nil_ok:
                raise errors.NilNotAllowed(
                    f"suicide: your partner bid nil, so you bid {least} or more"
                )
        elif least is None:
            raise errors.BidOutOfRange("suicide: your partner bid a number, so you bid nil")
        elif bid.tricks < least:
            raise errors.BidOutOfRange(f"suicide: a number bid is {least} or more")

    def least_bid(self, seat: int) -> int:
        """The least `seat` may bid under `min_team_bid` (0: nil and any number): the
        partner's bid is there, and the two must reach the minimum (nil counts 0)."""
        least = self.rules.min_team_bid
        if not least:
            return 0
        partner = self.bids[(seat + 2) % 4]
        return 0 if partner is None else max(0, least - partner.tricks)

    def _check_play(self, seat: int, card: int) -> None:
        if self.phase != "playing":
            raise errors.WrongPhase("bidding is not finished yet")
        if seat != self.to_act:
            raise errors.NotYourTurn(f"it is seat {self.to_act}'s turn to play")
        play = self.play
        hand = play.hands[seat]
        if not hand >> card & 1:
            raise errors.CardNotInHand(f"{card_text(card)} is not in your hand")
        if play.trick:
            led = SUIT_OF[play.trick[0]]  # (a joker led asks for spades)
            if SUIT_OF[card] != led and hand & SUIT_MASKS[led]:
                raise errors.MustFollowSuit(f"you must follow suit: {SUIT_NAMES[led].lower()}")
        elif (
            SUIT_OF[card] == SPADES
            and play.must_break
            and not play.broken
            and hand & NON_SPADE_MASK
        ):
            raise errors.SpadesNotBroken("spades cannot be led until a spade has been played")

    def _do(self, seat: int | None, op: _Op) -> None:
        if isinstance(op, _TimeUp):
            self.time_is_up = True
        elif isinstance(op, _Look):
            assert seat is not None
            self.looked[seat] = True
        elif isinstance(op, _Bid):
            assert seat is not None
            self.bids[seat] = op
            self._bids_view = None
            self.looked[seat] = self.looked[seat] or not op.blind
            if all(b is not None for b in self.bids):
                self._play_view = None  # the trick in progress appears
                self.phase = "playing"
                self.to_act = self.play.to_act
            else:
                self.to_act = (seat + 1) % 4
        else:
            assert isinstance(op, _Play)
            play = self.play
            leader = play.leader
            trick = play.trick  # the list `play` appends this card to, and then drops
            winner = play.play(op.card)
            self._play_view = None
            if winner >= 0:
                self.trick_log.append((leader, tuple(trick), winner))
                self.last_trick = {
                    "leader": leader,
                    "cards": _trick_cards(leader, trick),
                    "winner": winner,
                    "hand": self.hand_number,
                }
                # A new list per trick, never changed after: views share it, and comparing
                # two views' tricks is then an identity check.
                self._tricks_view = [*self._tricks_view, self.last_trick]
            if play.done:
                self._finish_hand()
            else:
                self.to_act = play.to_act

    def _finish_hand(self) -> None:
        bids = [b.tricks if b else 0 for b in self.bids]
        blind = [bool(b and b.blind) for b in self.bids]
        result = score_hand(self.rules, bids, blind, self.play.tricks_won, self.scores, self.bags)
        self.history.append(
            {
                "hand": self.hand_number,
                "dealer": self.dealer,
                "bids": [format_bid(t, b) for t, b in zip(bids, blind, strict=True)],
                "blind": blind,
                "tricks": list(self.play.tricks_won),
                "points": list(result.points),
                "bags_added": list(result.bags_added),
                "bag_penalty": list(result.bag_penalty),
                "scores": list(result.scores),
                "bags": list(result.bags),
                "contract_made": list(result.contract_made),
                "nil_made": list(result.nil_made),
                "seed": self.hand_seed,
                "commitment": self.commitment,
            }
        )
        self._history_view = list(self.history)
        self.scores = list(result.scores)
        self.bags = list(result.bags)
        self.sets_in_row = sets_in_row_after(self.sets_in_row, result.contract_made)
        self._scores_view = None
        self.winner = game_winner(
            self.rules, self.scores, self.sets_in_row, result.moon, self.time_is_up
        )
        if self.winner is None:
            self._start_hand()
        else:
            self.phase = "over"
            self.to_act = None

    # --- what a seat may do ---------------------------------------------------------

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """The actions `seat` (default: the seat to act) may take now, as a client sends them."""
        if seat is None:
            seat = self.to_act
        if seat is None or self.phase == "over":
            return []
        if self.phase == "bidding":
            if self.blind_nil_open(seat):
                acts: list[Action] = [{"type": "look"}]
                if seat == self.to_act:
                    if (
                        self.blind_nil_ok[seat]
                        and not self.least_bid(seat)
                        and self._blind_ok(seat)
                    ):
                        acts.append({"type": "bid", "bid": "blind nil"})
                    acts += [_BLIND_BIDS[n] for n in self.blind_bids(seat)]
                return acts
            if seat != self.to_act:
                return []
            if self.rules.forced_bids:
                return [_BIDS_WITH_NIL[n] for n in self.forced_bids(seat)]
            if self.rules.suicide:
                nil_ok, least = self._suicide_bids(seat)
                numbers = [] if least is None else list(_BIDS[least - 1 :])
                return [_BIDS_WITH_NIL[0], *numbers] if nil_ok else numbers
            need = self.least_bid(seat) if self.rules.min_team_bid else 0
            if need:
                return list(_BIDS[need - 1 :])
            return list(_BIDS_WITH_NIL if self.rules.nil else _BIDS)
        if seat != self.to_act:
            return []
        # The legal cards a suit at a time (cards.RANKS_IN), each as its shared action.
        legal = self.play.legal()
        acts = []
        for s in range(4):
            ranks = RANKS_IN[legal >> (13 * s) & 0x1FFF]
            if ranks:
                acts += map(_SUIT_PLAYS[s].__getitem__, ranks)
        if legal >> 52:
            acts += map(_SUIT_PLAYS[4].__getitem__, RANKS_IN[legal >> 52])
        return acts

    # --- views ------------------------------------------------------------------------

    def view(self, seat: int | None) -> dict[str, Any]:
        """What `seat` may see (None: a spectator), JSON-ready, with its `legal` actions.

        The top-level dict is new on every call; everything in it (the rules, the lists of
        bids, scores, hand sizes, tricks, the trick in progress, the hand summaries, ...) is
        shared between views until the game changes it, to keep this cheap, so treat them
        as read-only.
        """
        play = self.play
        hidden = seat is None or self.blind_nil_open(seat)
        played = self._play_view
        if played is None:
            current = None
            if self.phase == "playing":
                current = {"leader": play.leader, "cards": _trick_cards(play.leader, play.trick)}
            h = play.hands
            sizes = [h[0].bit_count(), h[1].bit_count(), h[2].bit_count(), h[3].bit_count()]
            played = self._play_view = (sizes, list(play.tricks_won), current)
        sizes, won, current = played
        bids = self._bids_view
        if bids is None:
            bids = self._bids_view = (
                [None if b is None else format_bid(b.tricks, b.blind) for b in self.bids],
                [bool(b and b.blind) for b in self.bids],
            )
        totals = self._scores_view
        if totals is None:
            totals = self._scores_view = (list(self.scores), list(self.bags))
        return {
            "seat": seat,
            "mode": self.rules.mode,
            "rules": self._rules_dict,
            "phase": self.phase,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "to_act": self.to_act,
            "hand": None if hidden or seat is None else list(self._shown_hand(seat)),
            "hand_sizes": sizes,
            "bids": bids[0],
            "blind": bids[1],
            "blind_nil_open": False if seat is None else self.blind_nil_open(seat),
            "tricks_won": won,
            "tricks": self._tricks_view,
            "last_trick": self.last_trick,
            "current_trick": current,
            "spades_broken": play.broken,
            "scores": totals[0],
            "bags": totals[1],
            "winner": self.winner,
            "time_up": self.time_is_up,
            "commitment": self.commitment,
            "history": self._history_view,
            "legal": [] if seat is None else self.legal_actions(seat),
        }

    def own_view(self, seat: int) -> dict[str, Any]:
        """The keys of `view(seat)` that differ from the spectator's `view(None)`: the seat's
        own hand (None while it may still bid blind nil unlooked), `blind_nil_open` and
        `legal`. `{**view(None), "seat": seat, **own_view(seat)}` equals `view(seat)`."""
        hidden = self.blind_nil_open(seat)
        return {
            "hand": None if hidden else list(self._shown_hand(seat)),
            "blind_nil_open": hidden,
            "legal": self.legal_actions(seat),
        }

    def _shown_hand(self, seat: int) -> tuple[str, ...]:
        mask = self.play.hands[seat]
        shown_mask, texts = self._shown[seat]
        if shown_mask != mask:
            gone = shown_mask & ~mask
            if shown_mask >= 0 and not mask & ~shown_mask and gone & (gone - 1) == 0:
                # One card played since: the sorted hand without it (no sort, no cache miss).
                i = texts.index(card_text(gone.bit_length() - 1))
                texts = texts[:i] + texts[i + 1 :]
            else:
                texts = _display_hand(mask)
            self._shown[seat] = (mask, texts)
        return texts

    # --- records ----------------------------------------------------------------------

    def to_record(self) -> dict[str, Any]:
        """The game record: rules, secret seed, first dealer, explicit deals, every action.

        Holds the master seed, so it is server-side only until the game is over.
        """
        return {
            "format": RECORD_FORMAT,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "first_dealer": self.first_dealer,
            "deals": [[_hand_texts(m) for m in deal] for deal in self.explicit_deals],
            "scores": list(self.start_scores),
            "bags": list(self.start_bags),
            "actions": [{"seat": s, "action": a} for s, a in self.actions],
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Game:
        """Replay a game record exactly. Raises `RecordError` naming the bad action."""
        try:
            rules = Rules.from_dict(record.get("rules"))
            game = cls(
                rules,
                seed=str(record["seed"]),
                first_dealer=int(record["first_dealer"]),
                deals=[
                    [mask_of(as_dealt(parse_card(c), rules.deuces) for c in hand) for hand in deal]
                    for deal in record.get("deals", [])
                ],
                scores=record.get("scores"),
                bags=record.get("bags"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise errors.RecordError(f"unreadable game record: {exc}") from exc
        for index, entry in enumerate(record.get("actions", [])):
            try:
                game.apply(entry["seat"], entry["action"])
            except (errors.ActionError, KeyError, TypeError) as exc:
                raise errors.RecordError(f"action {index} refused: {exc}") from exc
        return game

    def state_key(self) -> tuple[Any, ...]:
        """Everything that defines the state, for comparing a replay with the original."""
        return (
            self.rules,
            self.seed,
            self.hand_number,
            self.dealer,
            self.phase,
            self.to_act,
            tuple(self.play.hands),
            tuple(self.play.trick),
            tuple(self.play.tricks_won),
            self.play.broken,
            tuple(self.bids),
            tuple(self.looked),
            tuple(self.scores),
            tuple(self.bags),
            self.sets_in_row,
            self.winner,
            self.time_is_up,
            tuple(self.trick_log),
        )


def _trick_cards(leader: int, cards: Sequence[int]) -> list[dict[str, Any]]:
    out = []  # (a loop: a comprehension is a function made and called, on Python 3.11)
    for c in cards:
        out.append({"seat": leader, "card": _TEXT[c]})
        leader = (leader + 1) & 3
    return out


# One shared action per card for `legal_actions` (read-only, like the views' other shared
# pieces): a seat's legal list is rebuilt after every action it may take.
_PLAY_ACTIONS: tuple[Action, ...] = tuple(
    {"type": "play", "card": card_text(c)} for c in range(ALL_CARDS)
)
_SUIT_PLAYS: tuple[tuple[Action, ...], ...] = tuple(
    _PLAY_ACTIONS[13 * s : 13 * s + 13] for s in range(5)
)
# The cards of each deck, lowest first, by (jokers, deuces): the deal's positions 0..51 give
# them in this order (`deal_from_seed`); None is the standard deck.
_DECK_CARDS: dict[tuple[bool, bool], tuple[int, ...] | None] = {
    (False, False): None,
    (False, True): None,  # (refused by `Rules`)
    (True, False): tuple(cards_of(JOKER_DECK)),
    (True, True): tuple(cards_of(DEUCE_DECK)),
}
# The bids a seat may make (copied for each list given out): 1..13, nil first where played.
_BIDS: tuple[Action, ...] = tuple({"type": "bid", "bid": n} for n in range(1, 14))
_BIDS_WITH_NIL: tuple[Action, ...] = ({"type": "bid", "bid": "nil"}, *_BIDS)
# A blind bid of a number, by the number (0 unused): "blind 6" and more (blind_bid_deficit).
_BLIND_BIDS: tuple[Action, ...] = tuple({"type": "bid", "bid": f"blind {n}"} for n in range(14))
_TEXT: tuple[str, ...] = tuple(card_text(c) for c in range(ALL_CARDS))
# A play's operation by the card's text as the server writes it: parsed once, not per move.
_PLAY_OPS: dict[str, _Play] = {card_text(c): _Play(c) for c in range(ALL_CARDS)}
# Under Deuce-Deuce "2D" and "2S" are taken for the trumps `DD` and `DS` (`as_dealt`).
_DEUCE_PLAY_OPS: dict[str, _Play] = {
    **_PLAY_OPS,
    **{card_text(plain): _PLAY_OPS[card_text(trump)] for plain, trump in PROMOTED.items()},
}


@functools.lru_cache(maxsize=8192)
def _display_hand(mask: int) -> tuple[str, ...]:
    """A hand as shown to its owner, sorted; cached, as every state sent rebuilds each view
    while a hand changes only when its owner plays (a busy server spent 4% of its time here)."""
    return tuple(card_text(c) for c in sort_for_display(cards_of(mask)))


def _hand_texts(mask: int) -> list[str]:
    return [card_text(c) for c in cards_of(mask)]


def _as_card(card: int | str) -> int:
    return parse_card(card) if isinstance(card, str) else int(card)


def _check_deal(deal: Sequence[int], deck: int) -> tuple[int, ...]:
    if len(deal) != 4:
        raise ValueError("a deal has four hands")
    total = 0
    for seat, mask in enumerate(deal):
        if mask.bit_count() != 13:
            raise ValueError(f"seat {seat} has {mask.bit_count()} cards, not 13")
        if total & mask:
            raise ValueError("a card is dealt twice")
        total |= mask
    if total != deck:
        raise ValueError("a deal is the 52 cards of the rules' deck")
    return tuple(deal)


def _parse(action: Any, rules: Rules) -> _Op:
    if not isinstance(action, dict):
        raise errors.MalformedAction("an action is an object with a 'type'")
    kind = action.get("type")
    if kind == "play":
        card = action.get("card")
        ops = _DEUCE_PLAY_OPS if rules.deuces else _PLAY_OPS
        op = ops.get(card) if type(card) is str else None
        if op is not None:  # a card as the server writes it ('AS', 'TH'): the usual case
            return op
        try:
            return _Play(as_dealt(parse_card(card), rules.deuces))  # type: ignore[arg-type]
        except CardParseError as exc:
            raise errors.MalformedAction(str(exc)) from exc
    if kind == "bid":
        return _parse_bid(action.get("bid"), rules)
    if kind == "look":
        return _Look()
    if kind == "time_up":
        return _TimeUp()
    raise errors.MalformedAction(f"unknown action type {kind!r}")


def _parse_bid(value: Any, rules: Rules) -> _Bid:
    if isinstance(value, str):
        word = value.strip().lower().replace("_", " ")
        if word == "nil":
            return _Bid(NIL)
        if word == "blind nil":
            return _Bid(NIL, blind=True)
        number = word.removeprefix("blind ")
        if number != word and number.isdigit() and 1 <= int(number) <= 13:
            return _Bid(int(number), blind=True)
        raise errors.MalformedAction(
            f"a bid is a number, 'nil', 'blind nil' or 'blind 6' and up, not {value!r}"
        )
    if isinstance(value, bool) or not isinstance(value, int):
        raise errors.MalformedAction(
            f"a bid is a number, 'nil', 'blind nil' or 'blind 6' and up, not {value!r}"
        )
    if value == 0 and rules.mode == "individual":
        return _Bid(NIL)
    if not 1 <= value <= 13:
        low = 0 if rules.mode == "individual" else 1
        raise errors.BidOutOfRange(f"a bid is {low}..13 tricks or nil, not {value}")
    return _Bid(value)


# An action's code: the seat (0-3, or 4 for the game clock) in the low three bits, above it
# the operation: a card 0-55 for a play, then the bids, then look and time_up.
_NO_SEAT = 4
_BID_CODE = ALL_CARDS  # + tricks, + _BLIND more when blind
_BLIND = 14  # bids 0 (nil) to 13
_LOOK_CODE = _BID_CODE + 2 * _BLIND
_TIME_UP_CODE = _LOOK_CODE + 1


def _op_code(seat: int | None, op: _Op) -> int:
    if isinstance(op, _Play):
        code = op.card
    elif isinstance(op, _Bid):
        code = _BID_CODE + op.tricks + (_BLIND if op.blind else 0)
    elif isinstance(op, _Look):
        code = _LOOK_CODE
    else:
        code = _TIME_UP_CODE
    return code << 3 | (_NO_SEAT if seat is None else seat)


@functools.cache
def _code_op(code: int) -> _Op:
    if code < _BID_CODE:
        return _Play(code)
    if code < _LOOK_CODE:
        tricks = code - _BID_CODE
        return _Bid(tricks % _BLIND, blind=tricks >= _BLIND)
    return _Look() if code == _LOOK_CODE else _TimeUp()


def _code_action(code: int) -> tuple[int | None, Action]:
    seat = code & 7
    return (None if seat == _NO_SEAT else seat), _format_op(_code_op(code >> 3))


def _format_op(op: _Op) -> Action:
    if type(op) is _Play:  # shared, read-only, as `last_action` and the legal lists are
        return _PLAY_ACTIONS[op.card]
    if isinstance(op, _Bid):
        if op.blind and op.tricks != NIL:
            return {"type": "bid", "bid": f"blind {op.tricks}"}
        return {"type": "bid", "bid": format_bid(op.tricks, op.blind)}
    if isinstance(op, _Look):
        return {"type": "look"}
    return {"type": "time_up"}
