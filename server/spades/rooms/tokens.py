"""Seat tokens: 128-bit random secrets, stored only as SHA-256, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    return secrets.token_urlsafe(16)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token: str, token_hash: str | None) -> bool:
    if token_hash is None:
        return False
    return hmac.compare_digest(hash_token(token), token_hash)
