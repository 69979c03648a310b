"""Two server processes' apps on one database: what the store decides holds on both."""

from __future__ import annotations

from pathlib import Path

from api_helpers import running_server


async def test_record_is_withheld_by_a_process_that_does_not_hold_the_game(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path) as first, running_server(tmp_path) as second:
        created = await first.create("/api/solo", target=100)
        room = (await first.get(f"/api/rooms/{created['code']}")).json()
        game_id = room["game_id"]
        assert room["status"] == "playing" and game_id is not None
        assert second.manager.find_game(game_id) is None  # not in the second's memory
        for server in (first, second):
            response = await server.get(f"/api/games/{game_id}/record")
            assert response.status_code == 409
            assert "seed" not in response.text
