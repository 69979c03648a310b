"""Wire models: every REST body and every server WebSocket message, as pydantic models (the
client's messages: spades.rooms.protocol, re-exported here).

docs/protocol.md embeds the JSON Schema generated from these (`python -m spades.api.docgen`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

# The client's messages are declared with their handlers and rate costs in the registry
# (spades.rooms.protocol); the names the rest of the api uses are re-exported here.
from spades.rooms.protocol import CLIENT_MESSAGE as CLIENT_MESSAGE
from spades.rooms.protocol import CLIENT_TYPES as CLIENT_TYPES
from spades.rooms.protocol import MAX_ID as MAX_ID
from spades.rooms.protocol import MIN_ID as MIN_ID
from spades.rooms.protocol import ClientMessage as ClientMessage
from spades.rooms.protocol import MessageId, Strict
from spades.rooms.settings import NAME_LENGTH, RoomSettings


def settings_dict(model: BaseModel) -> dict[str, Any]:
    """The settings of a create body (everything but the host's name)."""
    return model.model_dump(exclude={"name"})


# --- REST -------------------------------------------------------------------------------


class CreateRoom(RoomSettings):
    """A room's settings (each optional: its default) and the host's name."""

    name: str = Field(min_length=1, max_length=NAME_LENGTH, description="the host's display name")


class CreateSolo(CreateRoom):
    """Same as CreateRoom; `public` is ignored (a solo room is private)."""

    public: bool = False


class RoomCreated(BaseModel):
    room_id: str
    code: str
    invite_url: str
    seat: int
    token: str


class JoinRoom(Strict):
    name: str = Field("", max_length=NAME_LENGTH)
    seat: int | None = Field(None, ge=0, le=3)
    spectator: bool = False
    join_id: str | None = Field(
        None,
        min_length=16,
        max_length=64,
        pattern=r"^[A-Za-z0-9_-]+$",
        description="a random id of this join, the same when it is asked again (after a "
        "timeout, a 503): the room answers it with the same seat and token for two "
        "minutes instead of taking a second seat; as secret as the token",
    )


class Joined(BaseModel):
    seat: int | None
    token: str | None


class SeatOut(BaseModel):
    seat: int
    name: str | None
    kind: Literal["human", "bot", "empty"]
    bot_level: str | None
    connected: bool
    away: bool
    timed_out: bool
    rating: int | None = Field(
        None,
        description="in a rated room, the seated player's shown rating in the room's mode "
        '(docs/rules.md "Ratings"); null elsewhere, for a bot, or a seat with no player',
    )
    provisional: bool = Field(
        False, description="the rating is provisional (fewer than 10 rated games)"
    )


class RatingChangeShown(BaseModel):
    seat: int
    before: int = Field(description="the seat's player's shown rating before the game")
    after: int = Field(description="and after it")


class RoomOut(BaseModel):
    id: str
    code: str
    status: Literal["open", "playing", "finished", "abandoned"]
    host_seat: int | None
    you: int | None
    settings: RoomSettings
    seats: list[SeatOut]
    game_id: int | None
    invite_url: str
    started_by: int | None = Field(
        None,
        description="the seat that started the game being played (start or play_again); "
        "null before the first game, for a solo room's game, or after a server restart",
    )
    again: list[int] = Field(
        default_factory=list,
        description="after a game: the seats that asked to play again; the next game "
        "starts when every seated person who is connected has asked",
    )
    host_back_by: int | None = Field(
        None,
        description="the host is disconnected: when (epoch ms) the host's role passes to a "
        "seated player who is connected, unless the host is back by then; null otherwise",
    )
    spectators: int = Field(
        0, description="connections watching (not seated), counted up to 10: 10 = ten or more"
    )
    rating_changes: list[RatingChangeShown] = Field(
        default_factory=list,
        description="after a rated game: each rated seat's rating before and after it "
        "(empty during a game, in an unrated room, and after a server restart)",
    )


class SeatSummary(BaseModel):
    seat: int
    name: str | None
    kind: Literal["human", "bot", "empty"]


class RoomSummary(BaseModel):
    id: str
    code: str
    status: str
    settings: RoomSettings
    host: str | None
    seats: list[SeatSummary]
    open_seats: list[int]
    invite_url: str


class RoomList(BaseModel):
    rooms: list[RoomSummary]


class GameSummary(BaseModel):
    game_id: int
    winner: int | None
    scores: list[int] | None
    hands: list[dict[str, Any]] = Field(description="engine history entries, seeds revealed")


class RoomHistory(BaseModel):
    games: list[GameSummary]


# --- quick play ---------------------------------------------------------------------------


class QuickPlayJoin(Strict):
    """Wait for a table of four strangers of similar rating."""

    mode: str = Field(description="`partnership` or `individual` (else: `unknown_mode`)")
    target: int = Field(
        description="the score to play to: one of the server's presets, `presets.target` of "
        "GET /api/settings (else: `not_a_preset`)"
    )
    bots_after: int | None = Field(
        None,
        ge=5,
        le=600,
        description="seconds after which, if no table of people was found, bots fill your "
        "table (the room is then not rated); null: wait for people only",
    )
    name: str | None = Field(
        None,
        max_length=NAME_LENGTH,
        description="your name at the table; default: your player's name (one of the two "
        "is needed)",
    )


class QuickPlayState(BaseModel):
    """Where a player stands in quick play (every answer of /api/quickplay)."""

    status: Literal["waiting", "seating", "matched", "left"] = Field(
        description="`waiting`: in the queue, poll again; `seating`: a table is being made "
        "for you (you cannot leave now), poll again; `matched`: your seat (connect to "
        "/ws/{code} with `token`; asked again within two minutes, it is answered again); "
        "`left`: you left the queue"
    )
    mode: str | None = None
    target: int | None = None
    waiting: int | None = Field(
        None, description="players waiting for this mode and target, you included"
    )
    waiting_mode: int | None = Field(
        None, description="players waiting for this mode, any target, you included"
    )
    waited: float | None = Field(None, description="seconds you have waited")
    bots_in: float | None = Field(
        None, description="seconds until bots fill your table; null: you wait for people only"
    )
    poll_seconds: float | None = Field(
        None,
        description="poll GET /api/quickplay about this often: the poll keeps your place "
        "(no poll for SPADES_QUICKPLAY_EXPIRE seconds drops you from the queue); a poll "
        "that waits (`?wait=`) is followed by the next at once",
    )
    wait_seconds: float | None = Field(
        None, description="the longest a poll may wait for your seat (`?wait=`), in seconds"
    )
    code: str | None = Field(None, description="matched: the room's code")
    seat: int | None = Field(None, description="matched: your seat")
    token: str | None = Field(None, description="matched: your seat's token (keep it secret)")
    rated: bool | None = Field(None, description="matched: whether the room is rated")


# --- players ------------------------------------------------------------------------------


class NewPlayer(Strict):
    name: str | None = Field(
        None, max_length=NAME_LENGTH, description="a display name to keep (cleaned as a seat's)"
    )


class PlayerCreated(BaseModel):
    id: str = Field(description="the player's public id")
    secret: str = Field(description="the player's secret: shown once, stored only as a hash")
    credential: str = Field(description="`ID:SECRET`, what `X-Spades-Player` and `sit` carry")
    name: str | None


class PlayerShown(BaseModel):
    """A player as their page shows them (to others too: no username, which only signs in)."""

    id: str
    name: str | None
    public: bool = Field(
        description="whether others may see the player's page; false (private) until the "
        "player chooses otherwise"
    )


class PlayerOut(PlayerShown):
    """You (GET /api/me)."""

    username: str | None = Field(
        None, description="the account's username; null for a guest (no account)"
    )
    account: bool = Field(False, description="whether the player has an account")


class MeOut(PlayerOut):
    """You, as GET /api/me answers."""

    admin: bool = Field(
        False, description="whether you are an administrator (`spades admin grant`)"
    )


USERNAME = r"^[A-Za-z0-9_.-]{3,24}$"
PASSWORD_MIN, PASSWORD_MAX = 8, 256


class Credentials(Strict):
    """A username and a password: claiming an account, or signing in."""

    username: str = Field(
        pattern=USERNAME,
        max_length=24,
        description="3 to 24 letters, digits, `_`, `.` or `-`; compared without case",
    )
    password: str = Field(min_length=PASSWORD_MIN, max_length=PASSWORD_MAX)


class SignIn(Strict):
    """Any text is taken (a wrong username and a wrong password are answered alike)."""

    username: str = Field(max_length=64)
    password: str = Field(max_length=PASSWORD_MAX)


class NewPassword(Strict):
    current_password: str = Field(max_length=PASSWORD_MAX)
    new_password: str = Field(min_length=PASSWORD_MIN, max_length=PASSWORD_MAX)


class Password(Strict):
    password: str = Field(max_length=PASSWORD_MAX)


class PasskeyOptions(BaseModel):
    challenge_id: str = Field(description="send it back with the authenticator's answer")
    options: dict[str, Any] = Field(
        description="WebAuthn options as JSON (`PublicKeyCredentialCreationOptionsJSON` "
        "or `PublicKeyCredentialRequestOptionsJSON`: the browser's parse...FromJSON takes it)"
    )


class PasskeyAnswer(Strict):
    challenge_id: str = Field(max_length=32)
    credential: dict[str, Any] = Field(
        description="the authenticator's answer as JSON (the browser's `credential.toJSON()`)"
    )


class PasskeyAdded(BaseModel):
    id: str = Field(description="the passkey's credential id (base64url)")


class UpdateMe(Strict):
    """What to change of your player: each field optional (left out or null: unchanged), at
    least one given."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"minProperties": 1})

    name: str | None = Field(
        None, max_length=NAME_LENGTH, description="cleaned and capped as a seat's name"
    )
    public: bool | None = Field(
        None, description="show your player page (your finished games) to others"
    )

    @model_validator(mode="after")
    def _something(self) -> UpdateMe:
        if self.name is None and self.public is None:
            raise ValueError("send name, public or both")
        return self


class MyRoom(BaseModel):
    id: str
    code: str
    status: Literal["open", "playing"]
    seat: int = Field(description="your seat in the room")
    settings: RoomSettings
    host: str | None
    seats: list[SeatSummary]


class MyRooms(BaseModel):
    rooms: list[MyRoom] = Field(description="newest first")


class PlayedSeat(BaseModel):
    seat: int
    name: str | None = Field(description="null when the viewer may not see it (private room)")


class PlayedGame(BaseModel):
    game_id: int
    room: str | None = Field(description="the room's code; null for a private room")
    seat: int = Field(description="the player's seat")
    winner: int | None
    scores: list[int] | None
    mode: str | None
    target: int | None
    finished_at: str | None = Field(description="ISO 8601, UTC")
    players: list[PlayedSeat]


class PlayerGames(BaseModel):
    player: PlayerShown
    games: list[PlayedGame] = Field(description="finished games, newest first")
    next_before: int | None = Field(
        description="`before` for the next page (older games); null on the last page"
    )


class ModeStats(BaseModel):
    """A player's statistics under one mode, over the finished games they were dealt into
    (docs/rules.md "Statistics"); the shares and averages are null where nothing was
    counted to divide by."""

    mode: Literal["partnership", "individual"]
    games: int
    won: int = Field(description="games their side (partnership) or they (individual) won")
    hands: int
    contracts_bid: int = Field(description="hands their contract (their side's) was to make")
    contracts_made: int
    sets: int = Field(description="hands their contract was set")
    nils_bid: int
    nils_made: int
    blind_nils_bid: int
    blind_nils_made: int
    bags: int = Field(description="bags their side took")
    points: int = Field(description="points their side scored, bag penalties included")
    won_pct: float | None = Field(description="0..100")
    contracts_made_pct: float | None = Field(description="0..100")
    nils_made_pct: float | None = Field(description="0..100")
    blind_nils_made_pct: float | None = Field(description="0..100")
    bags_per_hand: float | None
    points_per_hand: float | None


class PlayerStats(BaseModel):
    player: PlayerShown
    modes: list[ModeStats] = Field(
        description="partnership then individual, each there (zeros where none was played)"
    )


class RatingOut(BaseModel):
    """A player's rating in one mode (docs/rules.md "Ratings")."""

    mode: Literal["partnership", "individual"]
    rating: int = Field(description="the shown rating: 1000 + 20 (mu - 3 sigma), at least 0")
    mu: float = Field(description="OpenSkill's estimate of the player's skill")
    sigma: float = Field(description="OpenSkill's uncertainty about it")
    games: int = Field(description="rated games counted")
    provisional: bool = Field(description="fewer rated games than the provisional count")
    rank: int | None = Field(description="place on the mode's leaderboard (null: not ranked)")


class RatingPoint(BaseModel):
    """One rated game's change of the player's rating."""

    game_id: int
    mode: Literal["partnership", "individual"]
    at: int = Field(description="epoch ms the game finished")
    before: int = Field(description="shown rating before the game")
    after: int = Field(description="shown rating after it")
    quit: bool = Field(description="the player left the game before its end (a loss)")


class PlayerRatings(BaseModel):
    player: PlayerShown
    modes: list[RatingOut] = Field(
        description="partnership then individual, each there (the default where unrated)"
    )
    history: list[RatingPoint] = Field(description="the last 200 changes, oldest first")


class LeaderEntry(BaseModel):
    rank: int
    player: PlayerShown | None = Field(
        description="null for a private player (shown anonymised: rank and rating only), "
        "unless it is you"
    )
    rating: int
    games: int


class Leaderboard(BaseModel):
    mode: Literal["partnership", "individual"]
    min_games: int = Field(description="rated games a player needs to be ranked")
    total: int = Field(description="players ranked")
    offset: int
    entries: list[LeaderEntry] = Field(description="best first, from `offset`")
    you: RatingOut | None = Field(
        description="your own rating and rank in this mode (send your credential); null without one"
    )


class Refusal(BaseModel):
    """A refused REST request (404, 409, 413, 429, ...); 422 lists the fields instead."""

    detail: str


# --- WebSocket: server -> client ----------------------------------------------------------


class ClockOut(BaseModel):
    turn_deadline: int | None = Field(description="epoch ms when the bot takes this turn")
    game_deadline: int | None = Field(description="epoch ms when the game clock runs out")
    now: int = Field(description="the server's epoch ms, to correct for clock skew")


class State(BaseModel):
    type: Literal["state"]
    seq: int = Field(description="number of stored actions of the current game")
    room: RoomOut | None = Field(
        None, description="left out when unchanged since this connection's last state"
    )
    view: dict[str, Any] | None = Field(
        description="spades.engine Game.view(seat): own hand only, with `legal`; keys the "
        "connection holds unchanged left out (see `state`)"
    )
    clock: ClockOut
    ref: MessageId = Field(None, description="the id of the message that caused it, if yours")


class OwnView(BaseModel):
    """Those of your own view keys that changed; the others keep their values."""

    hand: list[str] | None = Field(None, description="your cards (null while blind nil is open)")
    blind_nil_open: bool = False
    legal: list[dict[str, Any]] = Field([], description="what you may send now")


class Event(BaseModel):
    type: Literal["event"]
    seq: int = Field(description="the action's number in its game: held seq + 1, else resync")
    game_id: int
    action: dict[str, Any] = Field(
        description="what was done, as stored: {seat, type, ...} (seat null for time_up)"
    )
    view: dict[str, Any] = Field(
        description="the public view keys whose values changed (never hand, legal, seat, "
        "blind_nil_open); merge over the held view"
    )
    you: OwnView | None = Field(
        None, description="your own view keys that changed, when the action concerned your seat"
    )
    clock: ClockOut
    ref: MessageId = Field(None, description="the id of the message that caused it, if yours")


class Error(BaseModel):
    type: Literal["error"]
    code: str
    message: str
    ref: MessageId = None


class HintOut(BaseModel):
    type: Literal["hint"]
    action: dict[str, Any]
    ref: MessageId = None


class ChatOut(BaseModel):
    type: Literal["chat"]
    seat: int | None
    name: str
    text: str
    at: int | None


class Pong(BaseModel):
    type: Literal["pong"]
    ref: MessageId = None


class Seated(BaseModel):
    type: Literal["seated"]
    seat: int
    token: str
    ref: MessageId = None


class QuickOut(BaseModel):
    """A quick chat phrase or emote a player sent (`quick`), to every connection."""

    type: Literal["quick"]
    seat: int
    phrase: str = Field(description="the phrase's id (client message `quick`)")


class Unseated(BaseModel):
    """To the connection of a player whom the host put out of the seat (`set_seat`)."""

    type: Literal["unseated"]
    seat: int = Field(description="the seat you had")
    to: Literal["bot", "empty"] = Field(description="what the seat is now")


class Muted(BaseModel):
    """To the host, in answer to `mute`: the seat's chat is now muted (or not) in the room."""

    type: Literal["muted"]
    seat: int
    muted: bool
    ref: MessageId = None


ServerMessage = Annotated[
    State | Event | Error | HintOut | ChatOut | Pong | Seated | Unseated | QuickOut | Muted,
    Field(discriminator="type"),
]
SERVER_MESSAGE = TypeAdapter(ServerMessage)
