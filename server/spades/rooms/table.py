"""The facts of one room its parts read: who it is, its settings, its seats and its host."""

from __future__ import annotations

from typing import NamedTuple

from .seats import Seat
from .settings import RoomSettings


class SeatRating(NamedTuple):
    """A player's rating as a rated room shows it (rating.py: the conservative rating)."""

    shown: int
    provisional: bool


class Table:
    def __init__(
        self,
        *,
        room_id: str,
        code: str,
        invite_url: str,
        settings: RoomSettings,
        seats: list[Seat],
        host_seat: int | None,
    ) -> None:
        self.room_id = room_id
        self.code = code
        self.invite_url = invite_url  # read on every broadcast
        self.settings = settings
        self.seats = seats  # changed in place, never replaced
        self.host_seat = host_seat
        # A rated room's players' ratings (by player), and the last game's changes, each
        # (seat, shown before, shown after): what the seats and the game's end show.
        self.ratings: dict[str, SeatRating] = {}
        self.rating_changes: tuple[tuple[int, int, int], ...] = ()

    @property
    def settings(self) -> RoomSettings:
        return self._settings

    @settings.setter
    def settings(self, settings: RoomSettings) -> None:
        self._settings = settings
        self.settings_dict = settings.model_dump()  # as every state shows it, made once
