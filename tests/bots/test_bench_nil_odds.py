"""The nil bench's `--against` mode (bench/nil_odds.py) plays each basic nil twice, on the
same cards and bids, first against basic attackers and then against the given level."""

from __future__ import annotations

from bench.nil_odds import nil_against


def test_a_basic_nil_is_played_against_both_attackers_on_the_same_deal() -> None:
    found = []
    for deal in range(40):
        out = nil_against((deal, "partnership", "basic", 100, "basic"))
        if out:
            found.append(out)
    assert found, "some of 40 deals has a basic nil"
    for out in found:
        assert [who for who, _, _ in out] == ["basic", "basic"]
        (_, p1, made1), (_, p2, made2) = out
        assert p1 == p2 and 0.0 < p1 < 1.0
        assert made1 == made2  # the same deal, bids and seeds: the same play


def test_no_nil_no_rows() -> None:
    rows = [nil_against((deal, "individual", "easy", 100, "basic")) for deal in range(20)]
    assert any(not r for r in rows)
    assert all(len(r) in (0, 2) for r in rows)
