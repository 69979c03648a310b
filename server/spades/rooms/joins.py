"""Joins remembered by their id for a while, so a join asked again gets the same seat and
token instead of a second seat.

A join's answer can be lost after the seat was taken: the edge that relayed it gave up
waiting for the owner (cluster/relay.py, `CALL_TIMEOUT`) while the owner still seated the
player, or the client's connection dropped before the answer arrived. The seat is then
held by a token nobody received, and a retry would take another. A join that carries an id
(the client's `join_id`, or one the edge makes for its own second try) is remembered by the
room that seated it; the same id again, within `JOIN_MEMORY_SECONDS`, is answered with the
same seat and token as long as that seat still holds that token. Ids are 128-bit random
values chosen by whoever asks, as secret as the token they stand for.
"""

from __future__ import annotations

from collections import OrderedDict

JOIN_MEMORY_SECONDS = 120.0
JOIN_MEMORY_SIZE = 32  # ids per room: four seats need few, and a flood must not grow it


class RecentJoins:
    def __init__(self) -> None:
        self._answers: OrderedDict[str, tuple[float, int, str]] = OrderedDict()

    def get(self, join_id: str, now: float) -> tuple[int, str] | None:
        """The seat and token the join `join_id` was answered with, if remembered."""
        self._forget_before(now - JOIN_MEMORY_SECONDS)
        known = self._answers.get(join_id)
        return None if known is None else (known[1], known[2])

    def remember(self, join_id: str, seat: int, token: str, now: float) -> None:
        self._answers[join_id] = (now, seat, token)
        self._answers.move_to_end(join_id)
        while len(self._answers) > JOIN_MEMORY_SIZE:
            self._answers.popitem(last=False)

    def _forget_before(self, cutoff: float) -> None:
        while self._answers:
            oldest = next(iter(self._answers.values()))
            if oldest[0] >= cutoff:
                return
            self._answers.popitem(last=False)
