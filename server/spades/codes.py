"""The protocol's codes: the `code` of every refusal and `error` message, and the WebSocket
close codes. Each is spelled here and nowhere else in Python (tests/test_codes.py);
docs/protocol.md's tables and the web client's `client/js/codes.js` are generated from these
classes (`python -m spades.api.docgen`), so a new code is a member here and a run of that.

Standard library only: every layer imports it, the engine included. The members are `str`
and `int`, so any JSON encoder writes them as the plain values the wire has always carried.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum, unique


@unique
class ErrorCode(StrEnum):
    """The `code` of an `error` message (and of the refusal that caused it)."""

    meaning: str

    def __new__(cls, value: str, meaning: str) -> ErrorCode:
        member = str.__new__(cls, value)
        member._value_ = value
        member.meaning = meaning
        return member

    # The frame itself.
    BAD_JSON = "bad_json", "the frame is not UTF-8 JSON text"
    INVALID_MESSAGE = (
        "invalid_message",
        "the message does not fit its schema (text with a lone UTF-16 surrogate, `\\ud800`, "
        "is one)",
    )
    UNKNOWN_TYPE = "unknown_type", "no client message has that `type`"
    TOO_LARGE = "too_large", "the frame is longer than `SPADES_MAX_MESSAGE_BYTES`"
    # Who you are.
    HELLO_FIRST = "hello_first", "send `hello` before anything else"
    BAD_TOKEN = (
        "bad_token",
        "the token is not (or no longer) a seat of this room; the connection stays what it was "
        "(a spectator, or the seat it already had)",
    )
    BAD_PLAYER = (
        "bad_player",
        "the player credential (`X-Spades-Player`, `sit`'s `player`, or the session cookie) "
        "names no player here, its secret is wrong, or the session was signed out; nothing "
        "changed (REST: 401)",
    )
    # Accounts (REST only).
    BAD_LOGIN = (
        "bad_login",
        "the username or the password is wrong (one answer for both, on purpose; REST: 401)",
    )
    TOO_MANY_LOGINS = (
        "too_many_logins",
        "too many failed sign-ins from your address, or to that account, in the last minute "
        "(REST: 429 with Retry-After)",
    )
    CSRF_FAILED = (
        "csrf_failed",
        "a change the session cookie authenticates came without its `X-Spades-CSRF` token "
        "(the `spades_csrf` cookie's value) or from another site; nothing changed (REST: 403)",
    )
    BAD_PASSKEY = (
        "bad_passkey",
        "a passkey registration that could not be checked, or a challenge unknown or too old "
        "(REST: 400; 409 for a passkey registered already)",
    )
    USERNAME_TAKEN = "username_taken", "another account has that username (REST: 409)"
    HAS_ACCOUNT = (
        "has_account",
        "this player has an account already, or the request needs a guest credential (REST: 409)",
    )
    STILL_SEATED = (
        "still_seated",
        "you have a seat in a live room: finish or leave it before deleting your account "
        "(REST: 409)",
    )
    BANNED = (
        "banned",
        "you (or your address range) are banned from playing and chatting: the message says "
        "why and until when; nothing changed (REST: 403)",
    )
    MUTED = (
        "chat_muted",
        "your chat is muted, site-wide by an administrator or in this room by its host: the "
        "message says until when; nothing was said",
    )
    ADMIN_ONLY = "admin_only", "only an administrator may do that (REST: 403)"
    PLAYER_REQUIRED = (
        "player_required",
        "quick play needs your player: neither a credential (`X-Spades-Player`, from POST "
        "/api/players) nor a signed-in session's cookie was sent (REST: 401)",
    )
    NOT_SEATED = "not_seated", "only a seated player may do that"
    HOST_ONLY = "host_only", "only the host may do that"
    OWN_SEAT = "own_seat", "the host cannot replace their own seat"
    ALREADY_SEATED = "already_seated", "you already have a seat"
    # The stage of the room.
    WRONG_STATUS = "wrong_status", "not at this stage of the room"
    GAME_IN_PROGRESS = "game_in_progress", "the game has started (you can watch)"
    NO_GAME = "no_game", "no game is being played"
    ROOM_CLOSED = "room_closed", "the room is closed"
    # The request's content.
    ROOM_FULL = "room_full", "every seat is taken"
    BAD_REQUEST = "bad_request", "the request's content is refused"
    EMPTY_TEXT = "empty_text", "a name or a chat message is empty"
    TOO_LONG = "too_long", "a name or a chat message is longer than the room takes"
    RESERVED_NAME = "reserved_name", "that name is the table's own (a bot's); pick another"
    CHAT_BUSY = (
        "chat_busy",
        "the room took 20 chat messages in the last 10 s (all its connections together), or, "
        "from a spectator, its spectators together took 10 of them (the players always have "
        "the other half); try again in a few seconds",
    )
    # The engine refused the move.
    ILLEGAL_ACTION = "illegal_action", "the move is refused (no more precise code applies)"
    MALFORMED_ACTION = "malformed_action", "the move is not one the engine can read"
    GAME_OVER = "game_over", "the game is over"
    NOT_YOUR_TURN = "not_your_turn", "it is another seat's turn"
    WRONG_PHASE = "wrong_phase", "the hand is not at the bidding or playing that move needs"
    BID_OUT_OF_RANGE = "bid_out_of_range", "the bid is not a number of tricks the rules allow"
    NIL_NOT_ALLOWED = "nil_not_allowed", "nil is not played in this room"
    BLIND_NIL_NOT_ALLOWED = (
        "blind_nil_not_allowed",
        "blind nil is not played in this room, or not by you now (your cards are seen)",
    )
    MUST_LOOK_FIRST = "must_look_first", "look at your cards before bidding, or bid blind nil"
    NOTHING_TO_LOOK = "nothing_to_look", "your cards are shown already"
    CARD_NOT_IN_HAND = "card_not_in_hand", "that card is not in your hand"
    MUST_FOLLOW_SUIT = "must_follow_suit", "you must follow the suit led"
    SPADES_NOT_BROKEN = "spades_not_broken", "spades cannot be led until a spade was played"
    # Hints.
    NOTHING_TO_HINT = "nothing_to_hint", "no action is open to you now"
    HINT_PENDING = "hint_pending", "your last hint is still being worked out"
    HINT_FAILED = "hint_failed", "the hint could not be worked out (ask again)"
    # Failures: nothing changed.
    STORAGE_ERROR = (
        "storage_error",
        "the action (or seat, chat, settings, start) could not be stored, so it did not "
        "happen; try again",
    )
    SERVER_ERROR = "server_error", "an unexpected failure (logged); nothing changed"
    # Sent just before the socket closes.
    REPLACED = "replaced", "another connection took your seat (then the socket closes, 4001)"
    ABANDONED = "abandoned", "the room was closed (then the socket closes, 4002)"
    ROOM_CROWDED = (
        "room_crowded",
        "the room has as many spectators as it lets in (then the socket closes, 4013)",
    )
    # Quick play (REST only).
    ALREADY_QUEUED = (
        "already_queued",
        "you are waiting in quick play already (or your table is being set, or its seat "
        "waits for you on GET /api/quickplay); leave first to change mode (REST: 409)",
    )
    IN_RATED_GAME = (
        "in_rated_game",
        "you hold a seat in a rated game being played (the message names its room); finish "
        "it or leave its seat before you queue again (REST: 409)",
    )
    QUIT_WAIT = (
        "quit_wait",
        "you left a rated game before its end: quick play takes you again after a short "
        "wait (SPADES_QUICKPLAY_QUIT_WAIT; the message says when; REST: 429 with Retry-After)",
    )
    UNKNOWN_MODE = (
        "unknown_mode",
        "quick play has no such mode: `partnership` or `individual` (REST: 422)",
    )
    NOT_A_PRESET = (
        "not_a_preset",
        "quick play targets are the server's presets only (`presets.target` of GET "
        "/api/settings) (REST: 422)",
    )
    NOT_QUEUED = (
        "not_queued",
        "you are not waiting in quick play: never queued, left, dropped after no poll for "
        "`SPADES_QUICKPLAY_EXPIRE` seconds, or your seat was already handed to you (REST: 404)",
    )
    # Refusals that reach no `error` message: REST answers them with a status, or the
    # server acts on them itself.
    REFUSED = "refused", "a refusal of the rooms layer with no more precise code"
    ROOM_NOT_FOUND = "room_not_found", "no such room (REST: 404; a socket is closed with 4004)"
    SERVER_FULL = "server_full", "this process holds as many rooms as it may (REST: 503)"
    DRAINING = "draining", "this process is shutting down: no new room (REST: 409)"
    ROOM_MOVED = (
        "room_moved",
        "another process owns the room now: the socket is closed with 4012 (REST: 503)",
    )
    OWNED_ELSEWHERE = (
        "owned_elsewhere",
        "the room is live on another process: asked there (a socket is closed with 4012)",
    )


@unique
class CloseCode(IntEnum):
    """The code of a WebSocket close frame the server sends (besides a normal 1000)."""

    meaning: str

    def __new__(cls, value: int, meaning: str) -> CloseCode:
        member = int.__new__(cls, value)
        member._value_ = value
        member.meaning = meaning
        return member

    PROTOCOL_ERROR = (
        1002,
        "a WebSocket protocol violation (an unmasked or malformed frame, a reserved bit), "
        "as RFC 6455 says",
    )
    INVALID_TEXT = 1007, "text that is not UTF-8, as RFC 6455 says"
    POLICY = (
        1008,
        "more than the per-connection message rate, or more WebSocket ping frames than the "
        "server answers",
    )
    TOO_BIG = (
        1009,
        "repeated oversize frames (`SPADES_OVERSIZE_STRIKES` frames over "
        "`SPADES_MAX_MESSAGE_BYTES`)",
    )
    SERVER_ERROR = (
        1011,
        "an unexpected server error (logged), or no answer to the server's keepalive ping",
    )
    RESTARTING = (
        1012,
        "the server is restarting (a one-process server stopping on SIGTERM): reconnect, "
        "with backoff, until it is back; the room is as it was",
    )
    REPLACED = 4001, "the seat was opened by a newer connection with the same token"
    ABANDONED = 4002, "the room was abandoned"
    SLOW = 4003, "the client read its messages too slowly"
    NO_ROOM = 4004, "no such room (at connect)"
    NO_HELLO = 4008, "no `hello` within `SPADES_HELLO_SECONDS` of connecting"
    RECONNECT = (
        4012,
        "the room moved to another server process (cluster failover, a drain, or a process "
        "that may no longer write for it): reconnect **now**, with the same token",
    )
    CROWDED = (
        4013,
        "the room already has `SPADES_SPECTATORS_PER_ROOM` spectators; sent with an "
        "`error` `room_crowded`. Seated players always get in",
    )
    TOO_MANY = (
        4029,
        "too many connections from one address in a minute, or too many held open at once "
        "(`SPADES_SOCKETS_PER_ADDRESS`)",
    )
