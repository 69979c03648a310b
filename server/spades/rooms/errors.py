"""Refusals of the rooms layer. Each names its reason in `code`; nothing changed when raised."""

from __future__ import annotations


class RoomError(Exception):
    code = "refused"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class RoomNotFound(RoomError):
    code = "room_not_found"


class RoomFull(RoomError):
    code = "room_full"


class ServerFull(RoomError):
    """This process holds as many rooms as it may: a new one is refused (try later)."""

    code = "server_full"


class BadToken(RoomError):
    code = "bad_token"


class HostOnly(RoomError):
    code = "host_only"


class NotSeated(RoomError):
    code = "not_seated"


class WrongStatus(RoomError):
    code = "wrong_status"


class BadRequest(RoomError):
    code = "bad_request"


class RoomMoved(RoomError):
    """A write this process may no longer make: another process owns the room now (the
    store fenced it out, ownership.py). Nothing changed; the client reconnects (4012)."""

    code = "room_moved"
