"""The facts of one room its parts read: who it is, its settings, its seats and its host."""

from __future__ import annotations

from .seats import Seat
from .settings import RoomSettings


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

    @property
    def settings(self) -> RoomSettings:
        return self._settings

    @settings.setter
    def settings(self, settings: RoomSettings) -> None:
        self._settings = settings
        self.settings_dict = settings.model_dump()  # as every state shows it, made once
