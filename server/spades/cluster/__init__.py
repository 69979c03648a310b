"""Cluster mode: several server processes sharing PostgreSQL (the event log) and Redis
(ownership, routing, shared limits).

The layer sits between `rooms`/`store` and `api`: it may import those below it, `api` may
import it, and `rooms` never imports it (nor Redis). The single-process server uses none
of it.

Here: Redis leases with fencing (lease.py), the relay of connections to each room's owner
(relay.py), the sweep of rooms whose owner died and the drain (node.py), per-address limits
(limits.py). See docs/operations.md (Cluster).
"""
