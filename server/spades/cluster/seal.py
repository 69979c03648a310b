"""Relay messages sealed with the cluster's shared secret (`SPADES_CLUSTER_SECRET`).

Whatever crosses Redis pub/sub between the processes of a cluster (relay.py) carries seat
tokens (a relayed `hello`, a join's answer) and each relayed seat's private hand. Sealed,
it is encrypted and authenticated (AES-256-GCM, the key derived from the secret with
HKDF-SHA256): someone who can read Redis's traffic or subscribe to its channels learns
nothing, and a message that was not sealed with the secret (a forged `attach`, `hello` or
`yield` published by anything that is not a process of the cluster) is refused unread.

The sealed form is `S1` + a 12-byte random nonce + the sealing time (8 bytes, ms since
the epoch) + the ciphertext. The channel and the time are authenticated with it: a
message captured on one process's channel is refused on another's, and one older (or
newer) than `WINDOW` seconds is refused, so a replay must come within that window.
"""

from __future__ import annotations

import os
import struct
import time

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

MAGIC = b"S1"
WINDOW = 60.0  # seconds a sealed message stays acceptable (clocks of the hosts included)
_STAMP = struct.Struct(">Q")
_HEAD = len(MAGIC) + 12 + _STAMP.size


class Seal:
    """Seals and opens the relay's messages with a key derived from the cluster secret."""

    def __init__(self, secret: str) -> None:
        if not secret:
            raise ValueError("an empty cluster secret seals nothing")
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"spades relay v1").derive(
            secret.encode()
        )
        self._aead = AESGCM(key)
        self.refused = 0  # messages that did not open: forged, tampered, stale, foreign

    def close(self, payload: bytes, channel: str) -> bytes:
        nonce = os.urandom(12)
        stamp = _STAMP.pack(int(time.time() * 1000))
        sealed = self._aead.encrypt(nonce, payload, stamp + channel.encode())
        return MAGIC + nonce + stamp + sealed

    def open(self, data: bytes, channel: str) -> bytes | None:
        """The payload, or None when the message was not sealed with this secret for this
        channel within the last `WINDOW` seconds."""
        if len(data) <= _HEAD or not data.startswith(MAGIC):
            self.refused += 1
            return None
        nonce = data[len(MAGIC) : len(MAGIC) + 12]
        stamp = data[len(MAGIC) + 12 : _HEAD]
        (sealed_at,) = _STAMP.unpack(stamp)
        if abs(time.time() * 1000 - sealed_at) > WINDOW * 1000:
            self.refused += 1
            return None
        try:
            return self._aead.decrypt(nonce, data[_HEAD:], stamp + channel.encode())
        except InvalidTag:
            self.refused += 1
            return None
