from __future__ import annotations

from spades.engine import Game, Rules, card_text

# Seat s gets every card c with c % 4 == s: four of one suit and three of each other.
INTERLEAVED = [[card_text(c) for c in range(52) if c % 4 == s] for s in range(4)]
# Seat 0 all clubs, 1 all diamonds, 2 all hearts, 3 all spades.
BY_SUIT = [[card_text(13 * s + r) for r in range(13)] for s in range(4)]


def make(
    hands: list[list[str]] = INTERLEAVED,
    *,
    dealer: int = 3,
    mode: str = "partnership",
    scores: list[int] | None = None,
    bags: list[int] | None = None,
    **options: object,
) -> Game:
    rules = Rules.from_dict({"mode": mode, **options})
    return Game.from_deal(rules, hands, dealer, scores=scores, bags=bags, seed="test")


def bid_all(game: Game, bids: list[object]) -> None:
    for bid in bids:
        seat = game.to_act
        assert seat is not None
        if game.blind_nil_open(seat) and bid != "blind nil":
            game.apply(seat, {"type": "look"})
        game.apply(seat, {"type": "bid", "bid": bid})


def play_first_legal(game: Game, plays: int) -> None:
    for _ in range(plays):
        seat = game.to_act
        game.apply(seat, game.legal_actions()[0])
