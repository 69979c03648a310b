"""Ratings over a real uvicorn, on SQLite and PostgreSQL: a rated game of four players
changes each player's rating once, as a recomputation from the ratings before it says;
an unrated game changes none; a player who leaves takes the loss; the ratings history and
the leaderboard (paged, your own rank, private players anonymised, a minimum of games)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from api_helpers import Client, Server, play_until_over, running_server
from test_api_players import auth, new_player, server, show_games

from spades.api.routers.ratings import MIN_GAMES
from spades.codes import ErrorCode
from spades.engine.stats import Counts, SeatStats, record_stats
from spades.rooms.matchrating import rating_for_matching
from spades.rooms.rating import RatedSeat, matching_rating, rate_game, shown_rating
from spades.store import RoomRow, SeatRow

__all__ = ["server"]  # the fixture: SQLite and PostgreSQL


def seat_stats(mode: str, won: tuple[int, ...]) -> list[SeatStats]:
    """Any statistics of a game (the leaderboard's games are written to the store)."""
    return [SeatStats(seat, mode, Counts(games=1, won=won[seat])) for seat in range(4)]  # type: ignore[arg-type]


async def table(
    server: Server, players: list[dict[str, Any]], rated: bool, mode: str = "partnership"
) -> list[Client]:
    made = await server.http.post(
        "/api/rooms",
        json={"name": "P0", "rated": rated, "target": 60, "bot_level": "easy", "mode": mode},
        headers=auth(players[0]),
    )
    assert made.status_code == 200, made.text
    code, tokens = made.json()["code"], [made.json()["token"]]
    for i, player in enumerate(players[1:], start=1):
        joined = await server.http.post(
            f"/api/rooms/{code}/join", json={"name": f"P{i}", "seat": i}, headers=auth(player)
        )
        assert joined.status_code == 200, joined.text
        tokens.append(joined.json()["token"])
    return [await server.client(code, token) for token in tokens]


async def play_rated(
    server: Server, players: list[dict[str, Any]], rated: bool, mode: str = "partnership"
) -> int:
    clients = await table(server, players, rated, mode)
    await clients[0].send(type="start", id="go")
    finals = await asyncio.gather(*(play_until_over(c) for c in clients))
    for c in clients:
        await c.close()
    game_id: int = finals[0]["room"]["game_id"]
    CODES[game_id] = finals[0]["room"]["code"]
    return game_id


CODES: dict[int, str] = {}  # each game's room


async def ratings(server: Server, player: dict[str, Any]) -> dict[str, Any]:
    response = await server.http.get(f"/api/players/{player['id']}/ratings", headers=auth(player))
    assert response.status_code == 200, response.text
    got: dict[str, Any] = response.json()
    return got


async def test_a_rated_game_changes_ratings_once_and_an_unrated_one_none(server: Server) -> None:
    players = [await new_player(server, f"P{i}") for i in range(4)]
    fresh = await ratings(server, players[0])
    assert fresh["modes"][0] == {
        "mode": "partnership",
        "rating": 1000,
        "mu": 25.0,
        "sigma": 8.3333,
        "games": 0,
        "provisional": True,
        "rank": None,
    }
    assert fresh["history"] == []
    await play_rated(server, players, rated=False)
    assert await ratings(server, players[0]) == fresh
    game_id = await play_rated(server, players, rated=True)
    record = (await server.http.get(f"/api/games/{game_id}/record")).json()
    stats = record_stats(record)
    won = {s.seat for s in stats if s.counts.won}
    winner = 0 if won == {0, 2} else 1
    expected = rate_game(
        "partnership", [RatedSeat(s, p["id"]) for s, p in enumerate(players)], [0, 0], winner, {}
    )
    for change, player in zip(expected, players, strict=True):
        got = await ratings(server, player)
        mode = got["modes"][0]
        assert mode["games"] == 1 and mode["provisional"] is True
        assert abs(mode["mu"] - change.mu_after) < 1e-3
        shown = shown_rating(change.mu_after, change.sigma_after)
        assert got["history"] == [
            {
                "game_id": game_id,
                "mode": "partnership",
                "at": got["history"][0]["at"],
                "before": 1000,
                "after": shown,
                "quit": False,
            }
        ]
        assert got["modes"][1]["games"] == 0  # the other mode is apart
        # Quick play matches by the stored estimate (a new player: 1500).
        store = server.app.state.store
        matched = await rating_for_matching(player["id"], "partnership", store=store)
        assert abs(matched - matching_rating(change.mu_after)) < 1e-6
        assert await rating_for_matching(player["id"], "individual", store=store) == 1500.0
    # The room finishes the game again (as a replay after a restart or a failover does):
    # it reads the new ratings and computes other changes, and nothing changes.
    before = [await ratings(server, p) for p in players]
    room = server.manager.rooms[CODES[game_id]]
    await room.call(room.match.finish)
    assert [await ratings(server, p) for p in players] == before
    # Private: 404 to others, as the statistics.
    path = f"/api/players/{players[0]['id']}/ratings"
    assert (await server.http.get(path)).status_code == 404
    assert (await server.http.get(path, headers=auth(players[1]))).status_code == 404


async def test_an_individual_game_ranks_four_players_by_score(server: Server) -> None:
    players = [await new_player(server, f"I{i}") for i in range(4)]
    game_id = await play_rated(server, players, rated=True, mode="individual")
    record = (await server.http.get(f"/api/games/{game_id}/record")).json()
    scores = [s.counts.points for s in record_stats(record)]  # (final scores: from 0)
    expected = rate_game(
        "individual", [RatedSeat(s, p["id"]) for s, p in enumerate(players)], scores, None, {}
    )
    for change, player in zip(expected, players, strict=True):
        got = await ratings(server, player)
        individual = got["modes"][1]
        assert individual["mode"] == "individual" and individual["games"] == 1
        assert abs(individual["mu"] - change.mu_after) < 1e-3
        assert got["modes"][0]["games"] == 0  # partnership apart


async def test_leaderboard_pages_own_rank_and_private_players(server: Server) -> None:
    store = server.app.state.store
    players = [await new_player(server, f"L{i}") for i in range(5)]
    await show_games(server, players[4])  # public; the others are private
    # Rated games written straight to the store: L4 best, L0 under the minimum.
    for i, player in enumerate(players):
        rounds = MIN_GAMES - 1 if i == 0 else MIN_GAMES
        for n in range(rounds):
            room_id = f"lb{i}x{n}"
            seat = SeatRow(room_id, 0, name="x", token_hash="t", player_id=player["id"])
            await store.create_room(RoomRow(id=room_id, code=room_id.upper(), settings={}), [seat])
            game = await store.start_game(room_id, {}, 0, "s")
            mu = 20.0 + i
            change = {
                "seat": 0,
                "player_id": player["id"],
                "mu_before": 25.0 if n == 0 else mu,
                "sigma_before": 8.0 if n == 0 else 2.0,
                "mu_after": mu,
                "sigma_after": 2.0,
                "weight": 1.0,
                "quit": False,
            }
            stats = seat_stats("partnership", (1, 0, 1, 0))
            await store.finish_game(game, 0, [500, 0], stats=stats, ratings=[change])
    board = (await server.http.get("/api/leaderboard?mode=partnership&limit=2")).json()
    assert board["total"] == 4 and board["min_games"] == MIN_GAMES and board["you"] is None
    first, second = board["entries"]
    assert first["rank"] == 1 and first["player"]["id"] == players[4]["id"]
    assert first["rating"] == shown_rating(24.0, 2.0) and first["games"] == MIN_GAMES
    assert second == {"rank": 2, "player": None, "rating": shown_rating(23.0, 2.0), "games": 10}
    page = await server.http.get(
        "/api/leaderboard?mode=partnership&offset=2&limit=2", headers=auth(players[2])
    )
    body = page.json()
    assert [e["rank"] for e in body["entries"]] == [3, 4]
    assert body["entries"][0]["player"]["id"] == players[2]["id"]  # yourself, private or not
    assert body["entries"][1]["player"] is None
    assert body["you"]["rank"] == 3 and body["you"]["provisional"] is False
    under = await server.http.get("/api/leaderboard", headers=auth(players[0]))
    assert under.json()["you"]["rank"] is None and under.json()["you"]["games"] == MIN_GAMES - 1
    empty = (await server.http.get("/api/leaderboard?mode=individual")).json()
    assert empty["total"] == 0 and empty["entries"] == []
    assert (await server.http.get("/api/leaderboard?mode=chess")).status_code == 422
    assert (await server.http.get("/api/leaderboard?limit=0")).status_code == 422


async def test_a_player_who_leaves_takes_the_loss(tmp_path: Path) -> None:
    async with running_server(tmp_path, grace_seconds=0.0, quickplay_quit_wait=3600) as s:
        players = [await new_player(s, f"Q{i}") for i in range(4)]
        clients = await table(s, players, rated=True)
        await clients[0].send(type="start", id="go")
        await clients[1].close()  # seat 1 leaves at once: the bot plays the whole game
        finals = await asyncio.gather(*(play_until_over(c) for c in (clients[0], *clients[2:])))
        for c in (clients[0], *clients[2:]):
            await c.close()
        game_id = finals[0]["room"]["game_id"]
        got = await ratings(s, players[1])
        assert got["history"][0]["quit"] is True and got["history"][0]["game_id"] == game_id
        assert got["modes"][0]["mu"] < 25.0  # a loss, whatever the score
        assert got["modes"][0]["games"] == 1
        # Fair play: the leaver waits before quick play takes them again; the others do not.
        body = {"mode": "partnership", "target": 200}
        refused = await s.http.post("/api/quickplay", json=body, headers=auth(players[1]))
        assert refused.status_code == 429, refused.text
        assert refused.json()["code"] == ErrorCode.QUIT_WAIT
        assert 3500 < int(refused.headers["Retry-After"]) <= 3600
        assert "you left a rated game before its end" in refused.json()["detail"]
        queued = await s.http.post("/api/quickplay", json=body, headers=auth(players[0]))
        assert queued.status_code in (200, 201, 202), queued.text


async def test_a_rated_room_shows_ratings_by_the_seats_and_each_change_at_the_end(
    server: Server,
) -> None:
    """What the client shows beside names: each seated player's rating in a rated room
    (provisional at first), and at the game's end each seat's "before -> after", which
    the next rated room then shows as the players' ratings. An unrated room shows none."""
    players = [await new_player(server, f"P{i}") for i in range(4)]
    clients = await table(server, players, rated=True)
    lobby = clients[0].state["room"]
    assert [(s["rating"], s["provisional"]) for s in lobby["seats"]] == [(1000, True)] * 4
    assert lobby["rating_changes"] == []
    await clients[0].send(type="start", id="go")
    finals = await asyncio.gather(*(play_until_over(c) for c in clients))
    for c in clients:
        await c.close()
    end = finals[0]["room"]
    changes = {c["seat"]: c for c in end["rating_changes"]}
    assert sorted(changes) == [0, 1, 2, 3]
    for seat, player in enumerate(players):
        got = (await ratings(server, player))["modes"][0]
        assert changes[seat]["before"] == 1000 and changes[seat]["after"] == got["rating"]
        assert end["seats"][seat]["rating"] == got["rating"] and end["seats"][seat]["provisional"]
    rest = (await server.get(f"/api/rooms/{end['code']}")).json()
    assert rest["rating_changes"] == end["rating_changes"]
    # The next rated room shows the ratings as they are now; an unrated one shows none.
    again = await table(server, players, rated=True)
    assert [s["rating"] for s in again[3].state["room"]["seats"]] == [
        changes[seat]["after"] for seat in range(4)
    ]
    unrated = await table(server, players, rated=False)
    assert {s["rating"] for s in unrated[3].state["room"]["seats"]} == {None}
    for c in (*again, *unrated):
        await c.close()
