"""Passkeys over a real uvicorn, with a software authenticator (an ES256 key, "none"
attestation, built here as a browser's authenticator would answer): registered by a
signed-in account, signing in a fresh browser with no username; a challenge answers once;
a wrong signature, garbage, or a deleted account's passkey signs nobody in."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import cbor2
import httpx
import pytest
import pytest_asyncio
from api_helpers import Server, running_server
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from spades.codes import ErrorCode

pytestmark = pytest.mark.asyncio(loop_scope="module")

PASSWORD = "correct horse battery"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Authenticator:
    """One passkey: what a platform authenticator keeps and how it answers."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.id = secrets.token_bytes(16)
        self.count = 0
        self.user: bytes = b""

    def _client_data(self, kind: str, options: dict[str, Any], origin: str) -> bytes:
        data = {"type": kind, "challenge": options["challenge"], "origin": origin}
        return json.dumps(data).encode()

    def create(self, options: dict[str, Any], origin: str) -> dict[str, Any]:
        numbers = self.key.public_key().public_numbers()
        cose = cbor2.dumps(
            {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32), -3: numbers.y.to_bytes(32)}
        )
        rp = hashlib.sha256(options["rp"]["id"].encode()).digest()
        attested = bytes(16) + struct.pack(">H", len(self.id)) + self.id + cose
        auth_data = rp + bytes([0x45]) + struct.pack(">I", self.count) + attested
        self.user = unb64(options["user"]["id"])
        return {
            "id": b64(self.id),
            "rawId": b64(self.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(self._client_data("webauthn.create", options, origin)),
                "attestationObject": b64(
                    cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
                ),
            },
            "clientExtensionResults": {},
        }

    def get(self, options: dict[str, Any], origin: str) -> dict[str, Any]:
        self.count += 1
        rp = hashlib.sha256(options["rpId"].encode()).digest()
        auth_data = rp + bytes([0x05]) + struct.pack(">I", self.count)
        client_data = self._client_data("webauthn.get", options, origin)
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64(self.id),
            "rawId": b64(self.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client_data),
                "authenticatorData": b64(auth_data),
                "signature": b64(signature),
                "userHandle": b64(self.user),
            },
            "clientExtensionResults": {},
        }


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Server]:
    path: Path = tmp_path_factory.mktemp("passkeys")
    async with running_server(path) as s:
        yield s


async def sign_up(client: httpx.AsyncClient, username: str) -> None:
    """A guest made and its account claimed: `client` is signed in to it."""
    made = (await client.post("/api/players", json={"name": username.title()})).json()
    claimed = await client.post(
        "/api/account",
        json={"username": username, "password": PASSWORD},
        headers={"X-Spades-Player": made["credential"]},
    )
    assert claimed.status_code == 201


def csrf(client: httpx.AsyncClient) -> dict[str, str]:
    return {"X-Spades-CSRF": client.cookies["spades_csrf"]}


async def register(server: Server, client: httpx.AsyncClient, key: Authenticator) -> None:
    asked = await client.post("/api/account/passkeys/options", headers=csrf(client))
    assert asked.status_code == 200, asked.text
    options = asked.json()
    assert options["options"]["authenticatorSelection"]["residentKey"] == "required"
    answer = {
        "challenge_id": options["challenge_id"],
        "credential": key.create(options["options"], server.url),
    }
    added = await client.post("/api/account/passkeys", json=answer, headers=csrf(client))
    assert added.status_code == 201, added.text
    assert added.json()["id"] == b64(key.id)


async def sign_in(server: Server, key: Authenticator, client: httpx.AsyncClient) -> httpx.Response:
    options = (await client.post("/api/session/passkey/options")).json()
    answer = {
        "challenge_id": options["challenge_id"],
        "credential": key.get(options["options"], server.url),
    }
    return await client.post("/api/session/passkey", json=answer)


async def test_a_passkey_signs_in_without_a_username(server: Server) -> None:
    key = Authenticator()
    async with (
        httpx.AsyncClient(base_url=server.url) as owner,
        httpx.AsyncClient(base_url=server.url) as fresh,
    ):
        await sign_up(owner, "kim")
        missing = await owner.post("/api/account/passkeys/options")
        assert missing.status_code == 403  # a change: the CSRF token is needed
        await register(server, owner, key)
        signed = await sign_in(server, key, fresh)
        assert signed.status_code == 200, signed.text
        assert signed.json()["username"] == "kim"
        assert (await fresh.get("/api/me")).json()["username"] == "kim"
        # The same passkey again: registered already.
        options = (await owner.post("/api/account/passkeys/options", headers=csrf(owner))).json()
        assert [c["id"] for c in options["options"]["excludeCredentials"]] == [b64(key.id)]


async def test_a_challenge_answers_once_and_forgeries_sign_nobody_in(server: Server) -> None:
    key = Authenticator()
    async with (
        httpx.AsyncClient(base_url=server.url) as owner,
        httpx.AsyncClient(base_url=server.url) as other,
    ):
        await sign_up(owner, "lou")
        await register(server, owner, key)
        options = (await other.post("/api/session/passkey/options")).json()
        answer = {
            "challenge_id": options["challenge_id"],
            "credential": key.get(options["options"], server.url),
        }
        assert (await other.post("/api/session/passkey", json=answer)).status_code == 200
        replayed = await other.post("/api/session/passkey", json=answer)
        assert replayed.status_code == 400 and replayed.json()["code"] == ErrorCode.BAD_PASSKEY
        # A signature by another key over the right challenge.
        forger = Authenticator()
        forger.id, forger.user = key.id, key.user
        async with httpx.AsyncClient(base_url=server.url) as third:
            forged = await sign_in(server, forger, third)
            assert forged.status_code == 401 and forged.json()["code"] == ErrorCode.BAD_LOGIN
            options = (await third.post("/api/session/passkey/options")).json()
            garbage = {
                "challenge_id": options["challenge_id"],
                "credential": {"id": 5, "response": []},
            }
            refused = await third.post("/api/session/passkey", json=garbage)
            assert refused.status_code == 401
            assert (await third.get("/api/me")).status_code == 401
        # A deleted account's passkey signs nobody in.
        deleted = await owner.request(
            "DELETE", "/api/account", json={"password": PASSWORD}, headers=csrf(owner)
        )
        assert deleted.status_code == 204
        async with httpx.AsyncClient(base_url=server.url) as fourth:
            assert (await sign_in(server, key, fourth)).status_code == 401
