"""Refusals of the rooms layer. Each names its reason in `code`; nothing changed when raised."""

from __future__ import annotations

from spades.codes import ErrorCode


class RoomError(Exception):
    code: ErrorCode = ErrorCode.REFUSED

    def __init__(self, message: str, code: ErrorCode | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class RoomNotFound(RoomError):
    code = ErrorCode.ROOM_NOT_FOUND


class RoomFull(RoomError):
    code = ErrorCode.ROOM_FULL


class ServerFull(RoomError):
    """This process holds as many rooms as it may: a new one is refused (try later)."""

    code = ErrorCode.SERVER_FULL


class BadToken(RoomError):
    code = ErrorCode.BAD_TOKEN


class BadPlayer(RoomError):
    """A player credential that names no player, or with the wrong secret."""

    code = ErrorCode.BAD_PLAYER


class HostOnly(RoomError):
    code = ErrorCode.HOST_ONLY


class NotSeated(RoomError):
    code = ErrorCode.NOT_SEATED


class WrongStatus(RoomError):
    code = ErrorCode.WRONG_STATUS


class BadRequest(RoomError):
    code = ErrorCode.BAD_REQUEST


class RoomMoved(RoomError):
    """A write this process may no longer make: another process owns the room now (the
    store fenced it out, ownership.py). Nothing changed; the client reconnects
    (`CloseCode.RECONNECT`)."""

    code = ErrorCode.ROOM_MOVED
