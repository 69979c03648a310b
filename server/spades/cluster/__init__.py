"""Cluster mode: several server processes sharing PostgreSQL (the event log) and Redis
(ownership, routing, shared limits).

The layer sits between `rooms`/`store` and `api`: it may import those below it, `api` may
import it, and `rooms` never imports it (nor Redis). The single-process server uses none
of it.
"""
