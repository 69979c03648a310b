"""The rating of one finished game (rooms/rating.py): partnership as two teams, individual
as four players by score, weights for a bot's share of a seat, a leaver's loss, seats of
no player (a bot, a person who named none) rated for nobody."""

from __future__ import annotations

from spades.rooms.rating import (
    MU,
    SIGMA,
    RatedSeat,
    Rating,
    matching_rating,
    rate_game,
    shown_rating,
)


def by_player(changes: list) -> dict[str, tuple[float, float]]:  # type: ignore[type-arg]
    return {c.player_id: (c.mu_after, c.sigma_after) for c in changes}


def seats(**kw: RatedSeat) -> list[RatedSeat]:
    return list(kw.values())


FOUR = [RatedSeat(s, f"p{s}") for s in range(4)]


def test_partnership_winners_gain_and_losers_lose() -> None:
    changes = rate_game("partnership", FOUR, [520, 300], 0, {})
    after = by_player(changes)
    assert after["p0"][0] > MU and after["p2"][0] > MU
    assert after["p1"][0] < MU and after["p3"][0] < MU
    assert all(c.mu_before == MU and c.sigma_before == SIGMA for c in changes)
    assert all(s < SIGMA for _, s in after.values())


def test_individual_is_ranked_by_score() -> None:
    after = by_player(rate_game("individual", FOUR, [100, 300, 200, 250], 1, {}))
    assert after["p1"][0] > after["p3"][0] > after["p2"][0] > after["p0"][0]
    assert after["p0"][0] < MU < after["p1"][0]
    tied = by_player(rate_game("individual", FOUR, [100, 300, 200, 300], 1, {}))
    assert tied["p1"] == tied["p3"]  # equal scores share a place


def test_only_seats_with_a_player_are_rated() -> None:
    two = [RatedSeat(0, "p0"), RatedSeat(1, None), RatedSeat(3, "p3")]
    changes = rate_game("partnership", two, [500, 0], 0, {})
    assert sorted(c.player_id for c in changes) == ["p0", "p3"]


def test_a_seat_the_bot_played_for_counts_less() -> None:
    whole = by_player(rate_game("partnership", FOUR, [500, 0], 0, {}))
    half = [RatedSeat(0, "p0", weight=0.5), *FOUR[1:]]
    weighted = by_player(rate_game("partnership", half, [500, 0], 0, {}))
    assert MU < weighted["p0"][0] < whole["p0"][0]
    assert weighted["p0"][1] > whole["p0"][1]  # less learnt about p0


def test_a_leaver_takes_the_loss_whatever_the_score() -> None:
    left = [RatedSeat(0, "p0", weight=0.3, quit=True), *FOUR[1:]]
    after = by_player(rate_game("partnership", left, [500, 0], 0, {}))
    assert after["p0"][0] < MU  # their side won on points
    assert after["p2"][0] > MU  # the partner who stayed keeps the win
    full = by_player(
        rate_game("partnership", [RatedSeat(0, "p0", quit=True), *FOUR[1:]], [500, 0], 0, {})
    )
    assert after["p0"] == full["p0"]  # leaving early does not lessen the loss
    solo = [RatedSeat(0, "p0", quit=True), *FOUR[1:]]
    alone = by_player(rate_game("individual", solo, [900, 100, 200, 300], 0, {}))
    assert alone["p0"][0] == min(alone[p][0] for p in ("p1", "p2", "p3")) < MU  # last


def test_ratings_start_from_the_stored_ones_and_are_shown_conservatively() -> None:
    strong = {"p1": Rating(35.0, 2.0, 40), "p3": Rating(35.0, 2.0, 40)}
    upset = by_player(rate_game("partnership", FOUR, [500, 0], 0, strong))
    expected = by_player(rate_game("partnership", FOUR, [0, 500], 1, strong))
    assert upset["p0"][0] - MU > expected["p0"][0] - MU  # beating stronger players counts more
    assert shown_rating(MU, SIGMA) == 1000 and Rating().provisional
    assert shown_rating(35.0, 2.0) == 1000 + 20 * 29 and not Rating(35.0, 2.0, 40).provisional
    assert matching_rating(MU) == 1500.0
    assert shown_rating(0.0, 20.0) == 0  # never below zero


def test_the_seats_a_room_rates() -> None:
    """rated_seats: persons with a player only, each seat's share of its actions, and a
    leaver (gone past the grace period with the bot playing for them)."""
    from types import SimpleNamespace

    from spades.rooms.ratings_io import rated_seats
    from spades.rooms.seats import Seat

    seats = [
        Seat(0, "human", "A", player_id="a"),
        Seat(1, "human", "B", player_id="b", disconnected_at=100.0),
        Seat(2, "bot", "Bot", bot_level="easy"),
        Seat(3, "human", "D", player_id=None),
    ]
    table = SimpleNamespace(settings=SimpleNamespace(rated=True), seats=seats)
    moves = [[30, 10], [5, 35], [40, 0], [40, 0]]
    got = rated_seats(table, moves, now=200.0, grace=60.0)  # type: ignore[arg-type]
    assert got == [
        RatedSeat(0, "a", weight=0.75, quit=False),
        RatedSeat(1, "b", weight=0.125, quit=True),
    ]
    # Back within the grace period: not a leaver.
    assert rated_seats(table, moves, now=150.0, grace=60.0)[1].quit is False  # type: ignore[arg-type,index]
    table.settings.rated = False
    assert rated_seats(table, moves, now=200.0, grace=60.0) is None  # type: ignore[arg-type]
