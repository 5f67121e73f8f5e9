"""The bench's raw-socket watchers (``benchmarks/raw_watchers.py``) read responses as a real
server frames them: h11 writes the bytes (as Hypercorn does), sse-starlette the events, and the
reader is fed them whole and cut at every byte."""

from __future__ import annotations

import h11
from raw_watchers import _END, _Response
from sse_starlette import ServerSentEvent


def _chunked(events: list[bytes]) -> bytes:
    """A streamed 200 as a server writes it: the head, one chunk per event, the end."""
    server = h11.Connection(h11.SERVER)
    server.receive_data(b"GET /live/1-0/events HTTP/1.1\r\nHost: x\r\n\r\n")
    server.next_event()
    out = server.send(h11.Response(status_code=200, headers=[
        ("content-type", "text/event-stream"), ("transfer-encoding", "chunked")])) or b""
    for event in events:
        out += server.send(h11.Data(data=event)) or b""
    return out + (server.send(h11.EndOfMessage()) or b"")


EVENTS = [ServerSentEvent(data='[{"i": 0, "lines": []}, {"i": 1, "lines": ["a"]}]',
                          event="steps", id="1").encode(),
          ServerSentEvent(data='[{"i": 2, "lines": ["b"]}]', event="steps", id="2").encode(),
          ServerSentEvent(data='{"game": 17}', event="end").encode()]


def _read(wire: bytes, cut: int | None) -> tuple[_Response, list[bytes]]:
    seen: list[bytes] = []
    response = _Response(seen.append)
    pieces = [wire] if cut is None else [wire[i:i + cut] for i in range(0, len(wire), cut)]
    for piece in pieces:
        assert not response.done
        response.feed(piece)
    return response, seen


def test_a_stream_is_read_to_its_terminal_chunk_one_event_per_chunk() -> None:
    wire = _chunked(EVENTS)
    for cut in (None, 1, 7, 64):
        response, seen = _read(wire, cut)
        assert response.done and response.status == 200 and response.chunked
        assert seen == EVENTS
    end = _END.search(EVENTS[-1])
    assert end is not None and end.group(1) == b'{"game": 17}'


def test_a_stream_without_its_terminal_chunk_is_not_done() -> None:
    response, seen = _read(_chunked(EVENTS)[:-5], 3)
    assert not response.done and seen == EVENTS


def test_a_page_is_read_by_its_length_and_the_next_response_starts_clean() -> None:
    server = h11.Connection(h11.SERVER)
    server.receive_data(b"GET /live HTTP/1.1\r\nHost: x\r\n\r\n")
    server.next_event()
    body = b'<a href="/live/3-1">x</a><a href="/live/4-0">y</a>'
    wire = (server.send(h11.Response(status_code=200,
                                     headers=[("content-length", str(len(body)))])) or b""
            ) + (server.send(h11.Data(data=body)) or b"")
    for cut in (None, 1, 5):
        response, _ = _read(wire, cut)
        assert response.done and bytes(response.body) == body and not response.close
    short, _ = _read(wire[:-1], None)
    assert not short.done
