"""Passkeys (WebAuthn, with the `webauthn` library): a signed-in account registers one,
and any browser signs in with it, no username needed (a discoverable credential). Both
halves are two calls: options (a challenge, kept in the store so any process may take the
answer), then the authenticator's answer, checked against the challenge, this server's
origin and relying-party id (the host of `SPADES_PUBLIC_URL`, else of the request), and
for a sign-in the passkey's stored public key and counter. A sign-in opens a session as a
password does (`sessions.open_session`)."""

from __future__ import annotations

import logging
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import orjson
from fastapi import APIRouter, Request, Response
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from spades.codes import ErrorCode
from spades.store.protocol import ChallengeRow, NotFound, PasskeyRow, PasskeyTaken

from ..guard import refusals
from ..models import PasskeyAdded, PasskeyAnswer, PasskeyOptions, PlayerOut
from ..players import SignedIn
from ..services import services_of
from ..sessions import Refused, open_session, same_site
from .accounts import login_allowed, login_failed, player_out

router = APIRouter(tags=["accounts"])
log = logging.getLogger(__name__)

CHALLENGE_LIFE = timedelta(minutes=5)
REGISTER, LOGIN = "register", "login"
NO_PASSKEY = "that passkey did not sign in"


def relying_party(request: Request) -> tuple[str, str]:
    """(the relying party id, the origin) passkeys are made for: `SPADES_PUBLIC_URL`'s
    when it is set, else this request's (the browser checks it is the page's own)."""
    public = services_of(request).settings.public_url
    if public:
        parts = urlsplit(public)
        return parts.hostname or "", f"{parts.scheme}://{parts.netloc}"
    host = request.headers.get("host", "")
    return urlsplit(f"//{host}").hostname or "", f"{request.url.scheme}://{host}"


async def _challenge(request: Request, purpose: str, player_id: str | None) -> tuple[str, bytes]:
    challenge = secrets.token_bytes(32)
    row = ChallengeRow(
        id=secrets.token_urlsafe(12),
        challenge=bytes_to_base64url(challenge),
        purpose=purpose,
        player_id=player_id,
        created_at=datetime.now(UTC),
    )
    await services_of(request).store.add_challenge(row)
    return row.id, challenge


async def _taken(request: Request, challenge_id: str, purpose: str) -> ChallengeRow:
    """The challenge answered (used up), unless unknown or too old: else None."""
    try:
        row = await services_of(request).store.take_challenge(challenge_id, purpose)
    except NotFound:
        row = None
    if row is None or datetime.now(UTC) - row.created_at > CHALLENGE_LIFE:
        raise Refused(
            400, ErrorCode.BAD_PASSKEY, "that challenge is unknown or too old; start again"
        )
    return row


@router.post(
    "/api/account/passkeys/options", response_model=PasskeyOptions, responses=refusals(401, 403)
)
async def passkey_options(signed_in: SignedIn, request: Request) -> dict[str, Any]:
    """Options to register a passkey for your account (signed in): a discoverable
    credential, so it later signs in without a username."""
    _session, player, _value = signed_in
    rp_id, _origin = relying_party(request)
    known = await services_of(request).store.player_passkeys(player.id)
    challenge_id, challenge = await _challenge(request, REGISTER, player.id)
    options = generate_registration_options(
        rp_id=rp_id,
        rp_name="Spades",
        user_id=player.id.encode(),
        user_name=player.username or player.id,
        user_display_name=player.name or player.username or "",
        challenge=challenge,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=base64url_to_bytes(k.id)) for k in known
        ],
    )
    return {"challenge_id": challenge_id, "options": orjson.loads(options_to_json(options))}


@router.post(
    "/api/account/passkeys",
    response_model=PasskeyAdded,
    status_code=201,
    responses=refusals(400, 401, 403, 409),
)
async def add_passkey(body: PasskeyAnswer, signed_in: SignedIn, request: Request) -> PasskeyAdded:
    """Register the passkey the authenticator made for the options' challenge."""
    _session, player, _value = signed_in
    row = await _taken(request, body.challenge_id, REGISTER)
    if row.player_id != player.id:
        raise Refused(400, ErrorCode.BAD_PASSKEY, "that challenge was not made for you")
    rp_id, origin = relying_party(request)
    try:
        made = verify_registration_response(
            credential=body.credential,
            expected_challenge=base64url_to_bytes(row.challenge),
            expected_rp_id=rp_id,
            expected_origin=origin,
        )
    except Exception as exc:  # untrusted input: any failure to read or check it refuses it
        raise Refused(400, ErrorCode.BAD_PASSKEY, "the passkey could not be checked") from exc
    passkey = PasskeyRow(
        id=bytes_to_base64url(made.credential_id),
        player_id=player.id,
        public_key=bytes_to_base64url(made.credential_public_key),
        sign_count=made.sign_count,
        created_at=datetime.now(UTC),
    )
    try:
        await services_of(request).store.add_passkey(passkey)
    except PasskeyTaken as exc:
        raise Refused(409, ErrorCode.BAD_PASSKEY, "that passkey is registered already") from exc
    return PasskeyAdded(id=passkey.id)


@router.post(
    "/api/session/passkey/options", response_model=PasskeyOptions, responses=refusals(403, 429)
)
async def sign_in_options(request: Request) -> dict[str, Any]:
    """Options to sign in with a passkey (any of this site's: the browser offers them)."""
    if not same_site(request.headers):
        raise Refused(403, ErrorCode.CSRF_FAILED, "refused: the request came from another site")
    rp_id, _origin = relying_party(request)
    challenge_id, challenge = await _challenge(request, LOGIN, None)
    options = generate_authentication_options(
        rp_id=rp_id, challenge=challenge, user_verification=UserVerificationRequirement.PREFERRED
    )
    return {"challenge_id": challenge_id, "options": orjson.loads(options_to_json(options))}


@router.post(
    "/api/session/passkey", response_model=PlayerOut, responses=refusals(400, 401, 403, 429)
)
async def sign_in_with_passkey(
    body: PasskeyAnswer, request: Request, response: Response
) -> PlayerOut:
    """Sign in with the passkey the authenticator chose: this browser gets a session.
    A failure counts as a failed sign-in from your address (the same limit as passwords)."""
    if not same_site(request.headers):
        raise Refused(403, ErrorCode.CSRF_FAILED, "refused: the request came from another site")
    await login_allowed(request, None)
    row = await _taken(request, body.challenge_id, LOGIN)
    store = services_of(request).store
    rp_id, origin = relying_party(request)
    try:
        passkey = await store.get_passkey(str(body.credential.get("id", ""))[:255])
        player = await store.get_player(passkey.player_id)
    except NotFound as exc:
        await login_failed(request, None)
        raise Refused(401, ErrorCode.BAD_LOGIN, NO_PASSKEY) from exc
    try:
        checked = verify_authentication_response(
            credential=body.credential,
            expected_challenge=base64url_to_bytes(row.challenge),
            expected_rp_id=rp_id,
            expected_origin=origin,
            credential_public_key=base64url_to_bytes(passkey.public_key),
            credential_current_sign_count=passkey.sign_count,
        )
    except Exception as exc:  # untrusted input: any failure to read or check it refuses it
        checked = None
        log.info("a passkey sign-in was refused: %s", type(exc).__name__)
    if checked is None or player.deleted_at is not None:
        await login_failed(request, None)
        raise Refused(401, ErrorCode.BAD_LOGIN, NO_PASSKEY)
    await store.use_passkey(passkey.id, checked.new_sign_count)
    await open_session(request, response, player.id)
    return player_out(player)
