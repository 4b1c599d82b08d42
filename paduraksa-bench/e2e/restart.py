#!/usr/bin/python3
"""Restarts under load: what clients see while Paduraksa is restarted N times, per restart path.

    paduraksa-bench/e2e/restart.py [--restarts 5] [--connections 16] [--out DIR]

Paths measured, each in its own window with the same load:
  socket-systemctl   what `systemctl restart paduraksa` does with paduraksa.socket: this script holds
                     the listening socket (as the socket unit does), SIGTERMs the old server, waits for
                     it to exit, then starts the new one with the socket as fd 3 (LISTEN_FDS=1).
                     Connections made in between wait in the kernel's accept queue.
  socket-overlap     the same socket, but the new server starts first; once it serves, the old one gets
                     SIGTERM and drains (both accept on the socket for a moment).
  takeover           `run --takeover --takeover-socket PATH`: the new process takes the socket from the
                     running one over a Unix socket and tells it to drain.
  stop-start         the control: SIGTERM, wait for the exit, start again (binds the port itself).

Load, the whole window: wrk (keep-alive connections, reconnecting when a draining server closes one;
--timeout 30s, so that a request waiting for the next process counts as slow, not as wrk's own 2 s
timeout) and a prober that opens a fresh connection for every request (Connection: close) every 2 ms,
which is what sees refused connections. Reported per path: requests answered, refused connects,
failed requests, wrk's socket errors and non-2xx answers, wrk's slowest request, the prober's slowest
request (connect to answer) and longest gap between two answers, for socket-systemctl and stop-start
the longest time no process accepted (SIGTERM to the new process serving; the other paths always
have one accepting), and whether every old process exited 0.

Needs wrk and a built source tree (bin/paduraksa builds it on first use). Loopback only; every process
it starts is stopped by PID.
"""
import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCHER = os.path.join(ROOT, "bin", "paduraksa")

CONFIG = """server: {{drain_timeout: 10s, threads: 1}}
listeners:
  - {{name: public, address: "127.0.0.1:{port}", protocols: [http1, h2c]}}
hosts:
  - names: [a.test]
    routes:
      - {{path: /, respond: {{status: 200, body: "ok"}}}}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prober(threading.Thread):
    """A fresh connection per request: counts answers, refusals and failures, and the longest gap."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port = port
        self.stop = False
        self.answered = self.refused = self.failed = 0
        self.longest_gap = 0.0
        self.longest_request = 0.0
        self.failures = {}  # what the failed requests met, by kind

    def run(self):
        last = time.monotonic()
        request = b"GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
        while not self.stop:
            began = time.monotonic()
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=30) as s:
                    s.sendall(request)
                    data = b""
                    while True:
                        chunk = s.recv(4096)
                        if not chunk:
                            break
                        data += chunk
                if data.startswith(b"HTTP/1.1 200 "):
                    self.answered += 1
                    now = time.monotonic()
                    self.longest_request = max(self.longest_request, now - began)
                    self.longest_gap = max(self.longest_gap, now - last)
                    last = now
                else:
                    self.failed += 1
                    self.failures["not 200"] = self.failures.get("not 200", 0) + 1
            except ConnectionRefusedError:
                self.refused += 1
            except OSError as e:
                self.failed += 1
                kind = type(e).__name__
                self.failures[kind] = self.failures.get(kind, 0) + 1
            time.sleep(0.002)


class Servers:
    """Starts and stops server processes by PID, each with its own log."""

    def __init__(self, workdir, config, name):
        self.workdir = workdir
        self.config = config
        self.name = name
        self.procs = []
        self.count = 0

    def start(self, extra=(), inherited=None):
        self.count += 1
        log_path = os.path.join(self.workdir, "%s-server-%d.log" % (self.name, self.count))
        log = open(log_path, "wb")
        pass_fds = ()
        cmd = [LAUNCHER, "run", "--config", self.config, *extra]
        env = dict(os.environ)
        if inherited is not None:
            # systemd's contract: the socket is fd 3, LISTEN_FDS=1 and LISTEN_PID is the server's own
            # pid. The shell sets LISTEN_PID to its pid, which exec keeps for the launcher and the JVM.
            env.update(LISTEN_FDS="1", LISTEN_FDNAMES="public")
            pass_fds = (inherited,)
            move = "" if inherited == 3 else " 3<&%d %d<&-" % (inherited, inherited)
            cmd = ["/bin/sh", "-c", 'LISTEN_PID=$$ exec "$@"' + move, "sh", *cmd]
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, pass_fds=pass_fds,
                             start_new_session=True)
        log.close()
        self.procs.append(p)
        return p, log_path

    @staticmethod
    def await_serving(proc, log_path, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = open(log_path, errors="replace").read()
            if "serving " in text:
                return
            if proc.poll() is not None or "cannot start" in text:
                break
            time.sleep(0.05)
        sys.exit("server %d did not start; log %s:\n%s" % (proc.pid, log_path, open(log_path, errors="replace").read()))

    @staticmethod
    def stop(proc, timeout=30):
        proc.send_signal(signal.SIGTERM)
        return proc.wait(timeout)

    def stop_all(self):
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()


def parse_wrk(text):
    out = {"requests": 0, "socket_errors": 0, "non_2xx": 0, "wrk_max_latency_ms": None}
    m = re.search(r"Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)\b", text)
    if m:
        out["wrk_max_latency_ms"] = round(float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)])
    m = re.search(r"(\d+) requests in", text)
    if m:
        out["requests"] = int(m.group(1))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if m:
        out["socket_errors"] = sum(int(g) for g in m.groups())
        out["socket_errors_detail"] = m.group(0)
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if m:
        out["non_2xx"] = int(m.group(1))
    return out


def measure(path, args, workdir):
    port = free_port()
    config = os.path.join(workdir, "%s.yaml" % path)
    with open(config, "w") as f:
        f.write(CONFIG.format(port=port))
    servers = Servers(workdir, config, path)
    held = None
    handover = os.path.join(workdir, "%s.sock" % path)
    exit_codes = []
    longest_restart = 0.0
    try:
        if path.startswith("socket-"):
            held = socket.socket()
            held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            held.bind(("127.0.0.1", port))
            held.listen(1024)
            os.set_inheritable(held.fileno(), True)
            current, log = servers.start(inherited=held.fileno())
        elif path == "takeover":
            current, log = servers.start(extra=("--takeover-socket", handover))
        else:
            current, log = servers.start()
        servers.await_serving(current, log)
        prober = Prober(port)
        prober.start()
        duration = 3600  # ended with SIGINT (wrk then prints its totals) once the last restart settled
        wrk = subprocess.Popen(["wrk", "-t1", "-c%d" % args.connections, "-d%ds" % duration, "--timeout", "30s",
                                "-H", "Host: a.test", "http://127.0.0.1:%d/" % port],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        started = time.monotonic()
        time.sleep(args.settle)
        for _ in range(args.restarts):
            began = time.monotonic()  # SIGTERM: the old process stops accepting at once
            if path == "socket-systemctl":
                exit_codes.append(servers.stop(current))
                nxt, nlog = servers.start(inherited=held.fileno())
                servers.await_serving(nxt, nlog)
            elif path == "socket-overlap":
                nxt, nlog = servers.start(inherited=held.fileno())
                servers.await_serving(nxt, nlog)
                exit_codes.append(servers.stop(current))
            elif path == "takeover":
                nxt, nlog = servers.start(extra=("--takeover", "--takeover-socket", handover))
                servers.await_serving(nxt, nlog)
                exit_codes.append(current.wait(30))  # the new process tells the old one to drain
            else:
                exit_codes.append(servers.stop(current))
                nxt, nlog = servers.start()
                servers.await_serving(nxt, nlog)
            if path in ("socket-systemctl", "stop-start"):  # the others always have a process accepting
                longest_restart = max(longest_restart, time.monotonic() - began)
            current = nxt
            time.sleep(args.settle)
        wrk.send_signal(signal.SIGINT)
        out, _ = wrk.communicate(timeout=30)
        prober.stop = True
        prober.join(10)
        row = {"path": path, "restarts": args.restarts, "seconds": round(time.monotonic() - started, 1)}
        row.update(parse_wrk(out))
        row.update(prober_answered=prober.answered, prober_refused=prober.refused, prober_failed=prober.failed,
                   prober_longest_request_ms=round(prober.longest_request * 1000),
                   prober_longest_gap_ms=round(prober.longest_gap * 1000),
                   not_accepting_ms=round(longest_restart * 1000) if path in ("socket-systemctl", "stop-start") else None,
                   prober_failures=prober.failures, old_exit_codes=exit_codes)
        with open(os.path.join(workdir, "%s.wrk.txt" % path), "w") as f:
            f.write(out)
        return row
    finally:
        servers.stop_all()
        if held is not None:
            held.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--restarts", type=int, default=5)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--settle", type=float, default=3.0, help="seconds of load before, between and after restarts")
    ap.add_argument("--paths", default="socket-systemctl,socket-overlap,takeover,stop-start")
    ap.add_argument("--out", default=None, help="directory for logs and results.json (default: a temporary one)")
    args = ap.parse_args()
    for tool in ("wrk",):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            sys.exit("needs %s: apt-get install -y wrk" % tool)
    workdir = args.out or tempfile.mkdtemp(prefix="paduraksa-restart-")
    os.makedirs(workdir, exist_ok=True)
    rows = [measure(p, args, workdir) for p in args.paths.split(",")]
    with open(os.path.join(workdir, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("| path | restarts | wrk requests | wrk socket errors | wrk non-2xx | wrk slowest (ms) | new-connection requests"
          " | refused | failed | slowest (ms) | longest gap (ms) | nobody accepting (ms) | old exits |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        codes = r["old_exit_codes"]
        exits = "all 0" if codes and all(c == 0 for c in codes) else " ".join(str(c) for c in codes)
        print("| %s | %d | %d | %d | %d | %s | %d | %d | %d | %d | %d | %s | %s |" % (
            r["path"], r["restarts"], r["requests"], r["socket_errors"], r["non_2xx"], r["wrk_max_latency_ms"],
            r["prober_answered"], r["prober_refused"], r["prober_failed"], r["prober_longest_request_ms"],
            r["prober_longest_gap_ms"], "-" if r["not_accepting_ms"] is None else r["not_accepting_ms"], exits))
    print("logs and results.json in", workdir)


if __name__ == "__main__":
    main()
