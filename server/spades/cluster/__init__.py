"""Several server processes as one: Redis leases with fencing, a relay of connections to
each room's owner, the sweep of rooms whose owner died, and the drain on shutdown.

Implements `spades.rooms.ownership.Ownership`; the API layer wires it in when
`SPADES_REDIS_URL` is set. See docs/operations.md (Cluster).
"""
