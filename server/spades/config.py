"""Every knob of the server, each with an environment variable `SPADES_<NAME>`.

`get_settings()` reads the environment once; tests build `Settings(...)` directly.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from spades.codes import CloseCode
from spades.rooms.settings import CHAT_LENGTH, MIN_TARGET, NAME_LENGTH, PRESETS

MAX_QUICKPLAY_TARGET = 10_000


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SPADES_", extra="ignore")

    # storage
    database_url: str = "sqlite+aiosqlite:///./spades.db"
    auto_upgrade: bool = Field(True, description="run the Alembic upgrade when the server starts")
    sqlite_writer: Literal["process", "thread"] = Field(
        "process",
        description="on an SQLite file, commit appended actions in a child process (process) "
        "or in a thread of the server (thread); see docs/performance.md",
    )

    pg_writer: Literal["process", "inline"] = Field(
        "process",
        description="on PostgreSQL, insert appended actions from a child process (process) or "
        "on the server's own connection (inline); see docs/performance.md",
    )

    commit_interval: float = Field(
        0.01,
        ge=0,
        le=0.1,
        description="under load, group commits of actions start at most once per this many "
        "seconds, each gathering what arrived meanwhile (0: commit as soon as possible)",
    )

    # cluster mode (docs/operations.md): set redis_url to run as one of several processes
    redis_url: str = ""
    node_id: str = Field("", description="this process's name in the cluster; empty = host-pid")
    redis_prefix: str = Field("spades:", description="prefix of every Redis key and channel")
    cluster_secret: str = Field(
        "",
        repr=False,
        description="shared by every process of a cluster: what they send each other over "
        "Redis is encrypted and authenticated with it, and anything else refused; empty = "
        "in clear (a warning at start)",
    )
    lease_ttl: float = Field(5.0, gt=0, description="seconds a room's lease outlives its owner")
    orphan_sweep_seconds: float = Field(
        2.0, gt=0, description="how often rooms that lost their owner are looked for"
    )
    orphan_batch: int = Field(50, ge=1, description="rooms claimed per orphan sweep at most")
    health_port: int = Field(
        0,
        ge=0,
        le=65535,
        description="a port where a thread of its own answers /readyz (HAProxy's health "
        "check), so a process busy with a burst stays in the pool while a paused or hung one "
        "leaves it; 0 = none (/readyz on the main port only)",
    )
    health_host: str = Field("", description="the health port's address; empty = serve's --host")
    follow_sockets: bool = Field(
        True,
        description="a room nobody is connected to moves to the process its first socket "
        "lands on (HAProxy's choice), instead of being relayed there for its whole life",
    )

    # where invite links point; empty = relative links (/r/CODE) the client completes
    public_url: str = ""
    client_dir: str = Field("", description="static client directory; empty = the packaged one")

    # bots
    bot_delay: float = Field(
        0.8,
        ge=0,
        description="seconds a bot waits before it moves (twice that to lead after a trick)",
    )
    bot_workers: Literal["thread", "process"] = "process"
    strong_bot_budget: float = Field(
        2.0, gt=0, description="seconds a searching bot may think before the basic bot answers"
    )
    bot_processes: int = Field(0, ge=0, description="processes for strong bots; 0 = CPU cores")
    strong_iterations: int = Field(
        0,
        ge=0,
        description="rollouts per strong decision; 0 = the bot's own default (800). More "
        "cost CPU in proportion (fewer strong rooms per core)",
    )

    # seats and rooms
    grace_seconds: float = Field(
        60.0, ge=0, description="a disconnected player's turn waits this long before a bot moves"
    )
    abandon_after: float = Field(
        900.0, gt=0, description="close a room with no connected human after this many seconds"
    )
    sweep_seconds: float = Field(15.0, gt=0, description="how often idle rooms are checked")
    purge_after_days: float = Field(
        7.0,
        ge=0,
        description="purge abandoned rooms after this many days: their finished games stay "
        "(0 = keep everything)",
    )
    timeouts_before_away: int = Field(2, ge=1)
    spectators_per_room: int = Field(
        200, ge=0, description="spectators one room lets in at once; 0 = no cap"
    )
    max_rooms: int = Field(
        10_000,
        ge=0,
        description="rooms one process holds at once; creating another then answers 503 "
        "(Retry-After) until some end; 0 = no cap",
    )

    # quick play (docs/protocol.md, "Quick play"); ratings are in rating points (~1500)
    quickplay_window: float = Field(
        100.0, ge=0, description="rating points apart four players may be to be seated at once"
    )
    quickplay_widen: float = Field(
        10.0, ge=0, description="rating points the window widens per second a player waited"
    )
    quickplay_expire: float = Field(
        15.0,
        gt=0,
        description="seconds a waiting player stays queued without polling (a closed page "
        "leaves the queue within this)",
    )
    quickplay_seating: float = Field(
        10.0,
        gt=0,
        description="seconds a process has to make a matched table before its players wait "
        "again (a process that died meanwhile)",
    )
    quickplay_tick: float = Field(
        0.5, gt=0, description="seconds between two looks for matches, in each process"
    )
    quickplay_quit_wait: float = Field(
        600.0,
        ge=0,
        description="seconds a player who left a rated game before its end waits before "
        "quick play takes them again (0 = no wait)",
    )
    quickplay_turn_seconds: int = Field(
        30, ge=0, le=600, description="the turn timer of a quick play room (0 = untimed)"
    )
    quickplay_targets: str = Field(
        ",".join(map(str, PRESETS["target"])),
        description=f"the targets quick play offers, comma-separated ({MIN_TARGET} to "
        f"{MAX_QUICKPLAY_TARGET}); every process of a cluster must offer the same",
    )

    # garbage collector (server/spades/api/gc_policy.py); gc_freeze_every 0 = CPython's default
    gc_freeze_every: float = Field(
        1.0, ge=0, description="seconds between moving live objects out of the collector's way"
    )
    gc_full_every: float = Field(
        1800.0, gt=0, description="seconds between full collections (the one long pause)"
    )
    gc_full_growth: float = Field(
        0.0, ge=0, description="heap growth (a fraction) that brings one forward; 0 = off"
    )

    # logs: "json" writes one JSON object per line (room and seat as fields)
    log_format: Literal["text", "json"] = "text"

    # limits
    max_message_bytes: int = Field(4096, ge=256)
    oversize_strikes: int = Field(3, ge=1, description="oversize frames before the socket closes")
    messages_per_second: float = Field(10.0, gt=0)
    message_burst: int = Field(30, ge=1)
    rooms_per_minute: int = Field(10, ge=1, description="room creations per client address")
    joins_per_minute: int = Field(30, ge=1, description="join attempts per client address")
    lookups_per_minute: int = Field(
        120, ge=1, description="rooms looked up by code (GET /api/rooms/CODE) per client address"
    )
    login_failures_per_minute: int = Field(
        9,
        ge=1,
        description="failed sign-ins one client address may make in any minute; the next "
        "sign-in from it is refused with 429 and Retry-After",
    )
    account_login_failures_per_minute: int = Field(
        20,
        ge=1,
        description="failed sign-ins to one account in any minute, from all addresses; the "
        "next sign-in to it is refused with 429 and Retry-After",
    )
    # an operator may shorten names and chat, never lengthen them past the wire's cap
    chat_length: int = Field(CHAT_LENGTH, ge=1, le=CHAT_LENGTH)
    name_length: int = Field(NAME_LENGTH, ge=1, le=NAME_LENGTH)
    send_queue: int = Field(256, ge=8, description="queued messages before a slow client is cut")
    sockets_per_address: int = Field(
        32, ge=0, description="WebSockets one client address may hold open at once; 0 = no cap"
    )
    max_body_bytes: int = Field(16_384, ge=1024, description="largest REST request body")
    hello_seconds: float = Field(
        15.0,
        ge=0,
        description="seconds a new WebSocket has to send its `hello` before it is closed "
        f"({CloseCode.NO_HELLO.value}); 0 = no limit",
    )
    request_head_seconds: float = Field(
        10.0,
        ge=0,
        description="seconds a connection has to send a whole request head (line and "
        "headers) before it is closed; 0 = no limit",
    )
    max_head_bytes: int = Field(
        65_536, ge=4096, description="largest HTTP request head (line and headers), in bytes"
    )
    request_body_seconds: float = Field(
        10.0,
        ge=0,
        description="seconds a request has to send its whole body after its head before "
        "the connection is closed; 0 = no limit",
    )
    http_connections_per_address: int = Field(
        128,
        ge=0,
        description="connections one client address may hold open before they become "
        "WebSockets (trusted proxies exempt); 0 = no cap",
    )

    # security (docs/operations.md, "Security")
    forwarded_allow_ips: str = Field(
        "",
        description="proxies trusted for X-Forwarded-For/-Proto (comma-separated "
        "addresses or networks, * = any); empty = none: the peer address is the client",
    )
    metrics_allow: str = Field(
        "127.0.0.0/8,::1",
        description="addresses or networks that may read /metrics "
        "(comma-separated); empty = nobody",
    )

    @field_validator("quickplay_targets")
    @classmethod
    def _targets(cls, value: str) -> str:
        return ",".join(map(str, targets_of(value)))

    @property
    def quickplay_target_list(self) -> tuple[int, ...]:
        return targets_of(self.quickplay_targets)


def targets_of(text: str) -> tuple[int, ...]:
    """Quick play's targets from their setting: whole numbers in range, each once, sorted."""
    try:
        targets = sorted({int(part) for part in text.split(",")})
    except ValueError:
        raise ValueError("a comma-separated list of whole numbers, such as 200,300,500") from None
    if not targets or not all(MIN_TARGET <= t <= MAX_QUICKPLAY_TARGET for t in targets):
        raise ValueError(f"each target is {MIN_TARGET} to {MAX_QUICKPLAY_TARGET}")
    return tuple(targets)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
