"""The ports the suite's and the benchmarks' servers start on (benchmarks._server.spare_port):
outside the range the kernel gives outgoing connections, a block for each process of a run
on several processes, never the same port twice in one process, never one in use."""

import socket
from pathlib import Path

import pytest

from benchmarks import _server
from benchmarks._server import PORT_BLOCK, SPARE_PORTS, port_block, spare_port


def ephemeral_range() -> range:
    low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
    return range(int(low), int(high) + 1)


def test_spare_ports_lie_below_the_range_outgoing_connections_are_given():
    ephemeral = ephemeral_range()
    assert SPARE_PORTS.stop <= ephemeral.start
    assert spare_port() < ephemeral.start


def test_each_process_of_a_run_draws_from_a_block_of_its_own():
    blocks = [port_block(f"gw{i}") for i in range(len(SPARE_PORTS) // PORT_BLOCK)]
    ports = [set(block) for block in blocks]
    for i, mine in enumerate(ports):
        assert mine <= set(SPARE_PORTS) and len(mine) == PORT_BLOCK
        assert all(not mine & other for other in ports[i + 1 :])
    assert spare_port() in port_block()


def test_one_process_never_hands_out_a_port_twice():
    # The servers of one test ask for their ports before any of them listens.
    drawn = [spare_port() for _ in range(200)]
    assert len(set(drawn)) == len(drawn)


def test_a_port_something_listens_on_is_passed_over(monkeypatch):
    free = spare_port()
    tiny = range(free - 2, free + 1) if free - 2 >= SPARE_PORTS.start else range(free, free + 3)
    listeners = []
    try:
        for port in tiny:
            if port == free:
                continue
            s = socket.socket()
            listeners.append(s)
            try:
                s.bind(("127.0.0.1", port))
                s.listen()
            except OSError:
                pass  # something else holds it already, which is as good
        monkeypatch.setattr(_server, "port_block", lambda worker=None: tiny)
        monkeypatch.setattr(_server, "_handed_out", set())
        assert spare_port() == free
        with pytest.raises(RuntimeError, match="no spare port left"):
            spare_port()
    finally:
        for s in listeners:
            s.close()
