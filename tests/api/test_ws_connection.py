"""WsConnection's write path: immediate writes, a backlog under flow control, slow clients.

The socket here is a stand-in whose writes can be held back, as a client that stops reading
holds back uvicorn's; every other test drives real sockets through uvicorn.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from spades.api.ws import WsConnection
from spades.codes import CloseCode
from spades.config import Settings


class HeldSocket:
    client = None
    scope: dict[str, Any] = {}  # noqa: RUF012 - no extensions: the ordinary ASGI send path

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.open.set()
        self.sent: list[dict[str, Any]] = []
        self.closed: tuple[int, str] | None = None

    async def send_text(self, text: str) -> None:
        await self.open.wait()  # as uvicorn waits while the transport is paused
        self.sent.append(orjson.loads(text))

    async def close(self, code: int, reason: str) -> None:
        await self.open.wait()
        self.closed = (code, reason)


def connection(queue: int = 8) -> tuple[WsConnection, HeldSocket]:
    socket = HeldSocket()
    return WsConnection(socket, Settings(send_queue=queue)), socket  # type: ignore[arg-type]


async def test_a_writable_socket_gets_each_message_at_once() -> None:
    conn, socket = connection()
    conn.send({"n": 1})
    conn.send({"n": 2})
    assert [m["n"] for m in socket.sent] == [1, 2]  # no task, no loop turn needed
    assert conn._flusher is None


async def test_held_writes_queue_up_and_go_out_in_order() -> None:
    conn, socket = connection()
    socket.open.clear()
    for n in range(5):
        conn.send({"n": n})
    await asyncio.sleep(0.01)
    assert socket.sent == []
    socket.open.set()
    await asyncio.sleep(0.01)
    assert [m["n"] for m in socket.sent] == [0, 1, 2, 3, 4]
    conn.send({"n": 5})  # writable again: straight out
    assert socket.sent[-1] == {"n": 5}


async def test_a_client_that_does_not_read_is_cut_off() -> None:
    conn, socket = connection(queue=8)
    socket.open.clear()
    for n in range(20):
        conn.send({"n": n})
    assert conn.closing == (CloseCode.SLOW, "too slow to read its messages")
    socket.open.set()
    await conn.finish(wait=1)
    assert socket.closed == (CloseCode.SLOW, "too slow to read its messages")
    assert [m["n"] for m in socket.sent] == [0]  # the write in flight; the backlog dropped


async def test_messages_before_a_close_are_delivered_first() -> None:
    conn, socket = connection()
    conn.send({"type": "error", "code": "replaced"})
    conn.close(4001, "seat taken over")
    conn.send({"type": "late"})  # after the close: dropped
    await conn.finish(wait=1)
    assert socket.sent == [{"type": "error", "code": "replaced"}]
    assert socket.closed == (4001, "seat taken over")


async def test_a_dead_socket_marks_the_connection_closing() -> None:
    conn, socket = connection()

    async def broken(text: str) -> None:
        raise RuntimeError("Cannot call send once a close message has been sent.")

    socket.send_text = broken  # type: ignore[method-assign]
    conn.send({"n": 1})
    assert conn.closing is not None and conn.closing[0] == 1006
    await conn.finish(wait=1)


async def test_a_send_outside_any_task_goes_through_the_flusher() -> None:
    conn, socket = connection()
    tasks: list[asyncio.Task[Any] | None] = []
    real = socket.send_text

    async def recording(text: str) -> None:
        tasks.append(asyncio.current_task())
        await real(text)

    socket.send_text = recording  # type: ignore[method-assign]
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    loop.call_soon(lambda: (conn.send({"n": 1}), conn.send({"n": 2}), done.set_result(None)))
    await done
    flusher = conn._flusher
    assert flusher is not None  # the writes went to a task
    await flusher
    assert [m["n"] for m in socket.sent] == [1, 2]
    assert tasks and all(task is not None for task in tasks)  # never stepped task-less


async def test_on_the_real_stack_a_writable_socket_is_written_in_one_step(
    tmp_path: Any, monkeypatch: Any
) -> None:
    """The premise of stepping uvicorn's send by hand: when the client reads, the first
    step finishes the write (nothing is left for a flusher task to resume)."""
    from api_helpers import running_server

    from spades.api import ws

    resumed: list[object] = []
    real = ws._finish

    async def counting(write: Any, waiting: Any) -> None:
        resumed.append(waiting)
        await real(write, waiting)

    monkeypatch.setattr(ws, "_finish", counting)
    async with running_server(tmp_path) as server:
        created = await server.create()
        client = await server.client(created["code"], created["token"])
        for n in range(20):
            await client.send(type="chat", text=f"hello {n}")
        await client.until(lambda m: m["type"] == "chat" and m["text"] == "hello 19")
        await client.close()
    assert resumed == []
