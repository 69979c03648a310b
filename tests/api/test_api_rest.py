"""REST routes: status codes, validation, limits, lobby, history, the static client."""

from __future__ import annotations

from pathlib import Path

from api_helpers import running_server


async def test_rest_routes_and_errors(tmp_path: Path) -> None:
    limit = 20
    async with running_server(tmp_path, rooms_per_minute=limit, joins_per_minute=50) as server:
        assert (await server.get("/healthz")).json() == {"status": "ok"}
        assert (await server.get("/readyz")).status_code == 200
        created = await server.create(
            mode="individual", target=250, turn_seconds=30, rules={"bag_limit": 5}
        )
        code = created["code"]
        # Without SPADES_PUBLIC_URL the link is relative: the client completes it.
        assert created["invite_url"] == f"/r/{code}"
        room = (await server.get(f"/api/rooms/{code.lower()}")).json()
        assert room["settings"]["rules"]["bag_limit"] == 5  # every option is shown
        assert room["settings"]["turn_seconds"] == 30
        assert [s["kind"] for s in room["seats"]] == ["human", "empty", "empty", "empty"]
        assert room["host_seat"] == 0 and room["status"] == "open"
        lobby = (await server.get("/api/rooms")).json()["rooms"]
        assert [r["code"] for r in lobby] == [code] and lobby[0]["open_seats"] == [1, 2, 3]

        bad = [
            {"name": "x", "mode": "triples"},
            {"name": "x", "target": 0},
            {"name": "x", "target": 49},
            {"name": "x", "target": 10_001},
            {"name": ""},
            {"name": "x", "rules": {"bag_limit": -1}},
            {"name": "x", "rules": {"no_such_rule": True}},
            {"name": "x", "turn_seconds": -5},
            {"name": "x", "bot_level": "genius"},
            {"name": "x" * 100},
        ]
        for body in bad:
            response = await server.post("/api/rooms", body)
            assert response.status_code == 422, body
            assert "detail" in response.json()
        assert (await server.post("/api/rooms", {"name": "\x00\x01"})).status_code == 422

        assert (await server.get("/api/rooms/ZZZZZZ")).status_code == 404
        long_code = "Q" * 5000
        missing = await server.get(f"/api/rooms/{long_code}")
        assert missing.status_code == 404 and long_code not in missing.text  # not quoted back
        assert (await server.get("/api/rooms/..%2F..%2Fetc")).status_code == 404
        assert (await server.post("/api/rooms/ZZZZZZ/join", {"name": "a"})).status_code == 404
        assert (await server.post(f"/api/rooms/{code}/join", {"name": ""})).status_code == 422
        assert (
            await server.post(f"/api/rooms/{code}/join", {"name": "a", "seat": 9})
        ).status_code == 422
        for wrong in ({"name": "a", "seat": "1"}, {"name": "a", "spectator": "no"}):
            # A value of the wrong JSON type is refused, not converted.
            assert (await server.post(f"/api/rooms/{code}/join", wrong)).status_code == 422
        taken = await server.post(f"/api/rooms/{code}/join", {"name": "a", "seat": 0})
        assert taken.status_code == 409
        for name in ("B", "C", "D"):
            await server.join(code, name)
        full = await server.post(f"/api/rooms/{code}/join", {"name": "E"})
        assert full.status_code == 409
        watch = await server.post(f"/api/rooms/{code}/join", {"spectator": True})
        assert watch.json() == {"seat": None, "token": None}

        # Refused bodies count too (the limit is checked before the body is read): the
        # creation above and the refused ones leave `left`, and the last of them is the last.
        left = limit - 1 - len(bad) - 1
        assert left > 0
        for _ in range(left):
            await server.create()
        limited = await server.post("/api/rooms", {"name": "x"})
        assert limited.status_code == 429

        assert (await server.get(f"/api/rooms/{code}/history")).json() == {"games": []}
        assert (await server.get("/api/games/999/record")).status_code == 404
        assert (await server.get("/openapi.json")).status_code == 200


async def test_record_of_a_game_in_progress_is_withheld(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        created = await server.create("/api/solo", target=100)
        room = (await server.get(f"/api/rooms/{created['code']}")).json()
        assert room["status"] == "playing"
        response = await server.get(f"/api/games/{room['game_id']}/record")
        assert response.status_code == 409
        assert "seed" not in response.text


async def test_static_client_is_served(tmp_path: Path) -> None:
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    (client_dir / "index.html").write_text("<!doctype html><title>Spades client</title>")
    (client_dir / "app.js").write_text("export {};")
    async with running_server(tmp_path, client_dir=str(client_dir)) as server:
        home = await server.get("/")
        assert home.status_code == 200 and "Spades client" in home.text
        page = await server.get("/r/ABC234")
        assert page.status_code == 200 and "Spades client" in page.text
        assert (await server.get("/app.js")).text == "export {};"
        # A browser at an address that is nothing here gets a page in words, 404; the API
        # and the files a page loads keep their JSON 404.
        html = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
        missing = await server.http.get("/review", headers=html)
        assert missing.status_code == 404 and "Page not found" in missing.text
        assert missing.headers["content-type"].startswith("text/html")
        assert '<html lang="en">' in missing.text and 'href="/"' in missing.text
        api = await server.http.get("/api/rooms/ZZZZZZ", headers=html)
        assert api.status_code == 404 and api.json()["detail"]
        asset = await server.http.get("/js/nothing.js", headers={"accept": "*/*"})
        assert asset.status_code == 404 and asset.json()["detail"]
    async with running_server(tmp_path, client_dir=str(tmp_path / "missing")) as server:
        assert (await server.get("/")).status_code == 200
        assert (await server.get("/r/ABC234")).status_code == 200


async def test_the_settings_schema_is_served_from_one_source(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        schema = (await server.get("/api/settings")).json()
    fields = schema["properties"]
    assert fields["target"]["minimum"] == 50 and fields["target"]["maximum"] == 10_000
    assert fields["target"]["default"] == 500 and fields["target"]["title"]
    assert fields["bot_level"]["enum"] == ["random", "easy", "basic", "strong"]
    assert fields["mode"]["enum"] == ["partnership", "individual"]
    rules = schema["$defs"]["RuleOptions"]["properties"]
    for option in ("blind_nil_value", "bag_value", "nil_tricks_count_for_partner"):
        assert "default" in rules[option] and rules[option]["title"]
    assert rules["bag_value"]["minimum"] == -10 and rules["bag_value"]["maximum"] == 10
