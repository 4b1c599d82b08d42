#!/usr/bin/env python3
"""Training traffic for the AOT cache: HTTP/1.1 keep-alive and h2c (prior knowledge) requests against
the training server (train.yaml), gate-answered and forwarded. Standard library only.

    train.py PORT SECONDS

Every answer's status is checked against the one the configuration gives, so a training run that
trained the error paths instead fails the build."""
import socket
import struct
import sys
import time

HOSTS = [  # (host, path, method, expected status)
    ("gate.train", "/", "GET", 200),
    ("gate.train", "/index.html?q=1&utm_source=x", "GET", 200),
    ("gate.train", "/old/page?x=1", "GET", 308),
    ("gate.train", "/limited", "GET", 200),
    ("gate.train", "/admin", "GET", 403),
    ("gate.train", "/", "DELETE", 405),
    ("h1.train", "/app/item?id=7", "GET", 200),
    ("h1.train", "/app/form", "POST", 200),
    ("h2.train", "/api/v1/items", "GET", 200),
    ("h2.train", "/api/v1/items", "POST", 200),
]
UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36"
BODY = b"name=paduraksa&value=" + b"x" * 200


def recv_exact(s, n, buf):
    while len(buf) < n:
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError("closed by the server")
        buf += chunk
    return buf


def h1_round(s, buf):
    """One request per HOSTS entry on a keep-alive connection; returns the rest of the buffer."""
    for host, path, method, want in HOSTS:
        body = BODY if method == "POST" else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: {UA}\r\nAccept: */*\r\n"
        if body:
            head += f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n"
        s.sendall(head.encode() + b"\r\n" + body)
        while b"\r\n\r\n" not in buf:
            buf = recv_exact(s, len(buf) + 1, buf)
        end = buf.index(b"\r\n\r\n") + 4
        lines = buf[:end].decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        if status != want:
            raise AssertionError(f"HTTP/1.1 {method} {host}{path}: {status}, expected {want}")
        length = 0
        for line in lines[1:]:
            if line.lower().startswith("content-length:"):
                length = int(line.split(":", 1)[1])
            if line.lower().startswith("connection:") and "close" in line.lower():
                raise AssertionError(f"HTTP/1.1 {host}{path}: the server closes the connection")
        buf = recv_exact(s, end + length, buf)[end + length:]
    return buf


def literal(name, value):
    """An HPACK literal field without indexing, new name, no Huffman (RFC 7541 6.2.2)."""
    def string(b):
        assert len(b) < 127
        return bytes([len(b)]) + b
    return b"\x00" + string(name.encode()) + string(value.encode())


def frame(kind, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def h2_round(s, state):
    """Every HOSTS entry as a stream, all in flight at once; waits for each stream's end."""
    open_streams = {}
    out = b""
    for host, path, method, want in HOSTS:
        sid = state["next"]
        state["next"] += 2
        body = BODY if method == "POST" else b""
        block = (literal(":method", method) + literal(":scheme", "http") + literal(":authority", host)
                 + literal(":path", path) + literal("user-agent", UA[:120]) + literal("accept", "*/*"))
        if body:
            block += literal("content-type", "application/x-www-form-urlencoded") + literal("content-length", str(len(body)))
            out += frame(1, 0x4, sid, block) + frame(0, 0x1, sid, body)
        else:
            out += frame(1, 0x5, sid, block)
        open_streams[sid] = (host, path, method, want)
    s.sendall(out)
    buf = state["buf"]
    while open_streams:
        buf = recv_exact(s, 9, buf)
        length = struct.unpack(">I", b"\x00" + buf[:3])[0]
        kind, flags, sid = buf[3], buf[4], struct.unpack(">I", buf[5:9])[0] & 0x7FFFFFFF
        buf = recv_exact(s, 9 + length, buf)
        payload, buf = buf[9:9 + length], buf[9 + length:]
        if kind == 4 and not flags & 1:  # SETTINGS: acknowledge
            s.sendall(frame(4, 1, 0, b""))
        elif kind == 6 and not flags & 1:  # PING
            s.sendall(frame(6, 1, 0, payload))
        elif kind == 7:
            raise AssertionError(f"h2c: GOAWAY {payload.hex()}")
        elif kind == 3:
            raise AssertionError(f"h2c: stream {sid} reset: {payload.hex()}")
        elif kind == 1 and sid in open_streams:
            # The server's status: its encoder sends :status as an indexed static entry (8-14) for the
            # common codes; anything else is checked only for not being an error page.
            first = payload[0] if payload else 0
            static = {0x88: 200, 0x89: 204, 0x8a: 206, 0x8b: 304, 0x8c: 400, 0x8d: 404, 0x8e: 500}
            want = open_streams[sid][3]
            if first in static and static[first] != want:
                raise AssertionError(f"h2c {open_streams[sid]}: status {static[first]}, expected {want}")
        elif kind == 0 and length:
            s.sendall(frame(8, 0, 0, struct.pack(">I", length)) + frame(8, 0, sid, struct.pack(">I", length)))
        if kind in (0, 1) and flags & 1:
            open_streams.pop(sid, None)
    state["buf"] = buf


def main():
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    deadline = time.monotonic() + seconds
    rounds = 0
    while time.monotonic() < deadline:
        # A fresh pair of connections now and then, so connection set-up is trained too.
        with socket.create_connection(("127.0.0.1", port), timeout=10) as h1, \
                socket.create_connection(("127.0.0.1", port), timeout=10) as h2:
            h2.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b""))
            state = {"next": 1, "buf": b""}
            buf = b""
            for _ in range(200):
                buf = h1_round(h1, buf)
                h2_round(h2, state)
                rounds += 1
                if time.monotonic() >= deadline:
                    break
    print(f"train.py: {rounds} rounds, {rounds * len(HOSTS) * 2} requests in {seconds:.0f} s")


if __name__ == "__main__":
    main()
