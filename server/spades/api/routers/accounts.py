"""Accounts over REST: claim one for your guest player, sign in and out (this browser, or
everywhere), change the password, delete the account. A signed-in browser holds a session
cookie (../sessions.py); the guest header keeps working for guests."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from spades.codes import ErrorCode
from spades.rooms import BadPlayer
from spades.rooms.players import DELETED_NAME, verified_session
from spades.store.protocol import NotFound, PlayerRow, UsernameTaken

from ..guard import refusals
from ..limits import Limiter, limit_key
from ..models import Credentials, NewPassword, Password, PlayerOut, SignIn
from ..players import Player, SignedIn
from ..services import services_of
from ..sessions import (
    COOKIE,
    Refused,
    check_csrf,
    clear_cookies,
    hash_password,
    open_session,
    password_matches,
    same_site,
)

router = APIRouter(tags=["accounts"])

WRONG = "wrong username or password"
RETRY_AFTER = "60"  # the limits count a sliding minute


def player_out(player: PlayerRow) -> PlayerOut:
    return PlayerOut(
        id=player.id,
        name=player.name,
        public=player.public,
        username=player.username,
        account=player.has_account,
    )


def _limiter(request: Request) -> Limiter:
    limiter: Limiter = request.app.state.limiter
    return limiter


def _address(request: Request) -> str:
    return limit_key(request.client.host if request.client else "?")


async def login_allowed(request: Request, username: str | None) -> None:
    """Refuse (429) while the address, or the account `username` names, is over its failed
    sign-ins (passwords and passkeys alike)."""
    limiter = _limiter(request)
    if await limiter.blocked("login", _address(request)) or (
        username is not None and await limiter.blocked("login_account", username.lower())
    ):
        raise Refused(
            429,
            ErrorCode.TOO_MANY_LOGINS,
            "too many failed sign-ins; wait a minute",
            {"Retry-After": RETRY_AFTER},
        )


async def login_failed(request: Request, username: str | None) -> None:
    """Count a failed sign-in for the address (and the account `username` names)."""
    limiter = _limiter(request)
    await limiter.allow("login", _address(request))
    if username is not None:
        await limiter.allow("login_account", username.lower())


async def _password_checked(
    request: Request, username: str, player: PlayerRow | None, password: str
) -> None:
    """Refuse (429) while the address or the account is over its failed sign-ins; check
    the password (against a dummy hash without an account, the same work); a failure is
    counted for both and refused (401, one answer for an unknown user and a wrong password)."""
    await login_allowed(request, username)
    if await password_matches(password, player.password_hash if player is not None else None):
        return
    await login_failed(request, username)
    raise Refused(401, ErrorCode.BAD_LOGIN, WRONG)


@router.post(
    "/api/account",
    response_model=PlayerOut,
    status_code=201,
    responses=refusals(401, 409, 429),
)
async def claim_account(
    body: Credentials, player: Player, request: Request, response: Response
) -> PlayerOut:
    """Make your guest player an account (send your guest credential): a username and a
    password. Your games and name stay (it is the same player). Your guest secret stops
    working at once: from now on this browser is signed in (a session cookie), and any
    other signs in with the username and password."""
    if player.has_account:
        raise Refused(409, ErrorCode.HAS_ACCOUNT, "you have an account already")
    password_hash = await hash_password(body.password)
    store = services_of(request).store
    try:
        await store.claim_account(player.id, body.username, password_hash)
    except UsernameTaken as exc:
        raise Refused(409, ErrorCode.USERNAME_TAKEN, "that username is taken") from exc
    except NotFound as exc:  # claimed or deleted meanwhile
        raise Refused(409, ErrorCode.HAS_ACCOUNT, "this player cannot claim an account") from exc
    await open_session(request, response, player.id)
    return player_out(await store.get_player(player.id))


@router.post("/api/session", response_model=PlayerOut, responses=refusals(401, 403, 429))
async def sign_in(body: SignIn, request: Request, response: Response) -> PlayerOut:
    """Sign in with a username and a password: this browser gets a session cookie. A wrong
    username and a wrong password get the same answer (401, `bad_login`); the tenth failed
    sign-in from one address within a minute (or too many to one account) is refused with
    429 and Retry-After."""
    if not same_site(request.headers):
        raise Refused(403, ErrorCode.CSRF_FAILED, "refused: the request came from another site")
    store = services_of(request).store
    try:
        player: PlayerRow | None = await store.player_by_username(body.username)
    except NotFound:
        player = None
    await _password_checked(request, body.username, player, body.password)
    assert player is not None  # (a password matched)
    await open_session(request, response, player.id)
    return player_out(player)


@router.delete("/api/session", status_code=204, responses=refusals(403))
async def sign_out(request: Request, response: Response) -> None:
    """Sign this browser out: its session is revoked and its cookies cleared (a browser
    with no session, or one already revoked, is simply told to clear them)."""
    value = request.cookies.get(COOKIE)
    if value:
        try:
            session, _player = await verified_session(services_of(request).store, value)
        except BadPlayer:
            session = None
        if session is not None:
            check_csrf(request, value)
            await services_of(request).store.delete_session(session.id)
    clear_cookies(request, response)


@router.post("/api/account/sign-out-everywhere", status_code=204, responses=refusals(401, 403))
async def sign_out_everywhere(signed_in: SignedIn, request: Request, response: Response) -> None:
    """Revoke every session of your account, this one included (every browser signed in to
    it is signed out at its next request)."""
    await services_of(request).store.delete_sessions(signed_in[1].id)
    clear_cookies(request, response)


@router.post("/api/account/password", status_code=204, responses=refusals(401, 403, 429))
async def change_password(body: NewPassword, signed_in: SignedIn, request: Request) -> None:
    """A new password (the current one is needed). Every other session of the account is
    revoked; this browser stays signed in."""
    session, player, _value = signed_in
    await _password_checked(request, player.username or "", player, body.current_password)
    password_hash = await hash_password(body.new_password)
    await services_of(request).store.set_password(player.id, password_hash, keep_session=session.id)


@router.delete("/api/account", status_code=204, responses=refusals(401, 403, 409, 429))
async def delete_account(
    body: Password, signed_in: SignedIn, request: Request, response: Response
) -> None:
    """Delete your account (its password is needed): your name leaves every seat, game and
    chat line (they say "Deleted player"), your games stay, every session ends. Refused
    (409, `still_seated`) while you have a seat in a live room."""
    _session, player, _value = signed_in
    await _password_checked(request, player.username or "", player, body.password)
    store = services_of(request).store
    live = await store.player_rooms(player.id)
    if live:
        codes = ", ".join(r.room.code for r in live)
        raise Refused(
            409,
            ErrorCode.STILL_SEATED,
            f"you have a seat in a live room ({codes}): finish or leave it first",
        )
    await store.delete_account(player.id, shown_as=DELETED_NAME)
    await services_of(request).manager.forget_name(player.id, DELETED_NAME)
    clear_cookies(request, response)
