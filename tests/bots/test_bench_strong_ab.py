"""The Hard-against-frozen bench (bench/strong_ab.py): whole games on both seatings, and a
summary over the seeds whose every seating was played."""

from __future__ import annotations

from bench.strong_ab import play_game, summary


def test_a_short_game_on_both_seatings_is_summed_up() -> None:
    results = [play_game((4, rotation, "partnership", {}, 30)) for rotation in range(2)]
    for r in results:
        assert r["hands"] >= 1 and isinstance(r["a_won"], bool)
        assert all(t >= 0 for side in ("a", "b") for t in r["cpu"][side])
        assert all(0 <= made <= bid for bid, made in r["nils"].values())
        for side, odds, made in r["nil_list"]:  # every nil bid, with its fitted odds
            assert side in ("a", "b") and 0.0 <= odds <= 1.0 and isinstance(made, bool)
        assert len(r["nil_list"]) == sum(bid for bid, _ in r["nils"].values())
    out = summary([*results, {**results[0], "index": 5}])  # seed 5: one seating only
    assert out["games"] == 2 and out["seeds"] == 1 and out["left_out"] == 1
    assert out["a_wins"] == sum(r["a_won"] for r in results)
    assert out["a_cpu_ms"]["decisions"] == sum(len(r["cpu"]["a"]) for r in results)
    assert isinstance(out["a_nils_by_odds"], dict) and isinstance(out["b_nils_by_odds"], dict)
