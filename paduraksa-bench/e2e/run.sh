#!/usr/bin/env bash
# End-to-end comparison of Paduraksa, nginx and HAProxy (plus a direct control) on this machine.
#   paduraksa-bench/e2e/run.sh [--rounds N] [--duration S] [--quick] [more options: --help]
# Needs nginx, haproxy, wrk, h2load, taskset and /usr/bin/python3; it never installs anything.
# Every process it starts is stopped by PID, also when interrupted (trap below).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY=/usr/bin/python3

missing=()
for tool in nginx haproxy wrk h2load taskset; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ -x "$PY" ] || missing+=("python3")
if [ "${#missing[@]}" -gt 0 ]; then
  pkgs=()
  for t in "${missing[@]}"; do
    case "$t" in
      nginx) pkgs+=(nginx-light) ;;
      haproxy) pkgs+=(haproxy) ;;
      wrk) pkgs+=(wrk) ;;
      h2load) pkgs+=(nghttp2-client) ;;
      taskset) pkgs+=(util-linux) ;;
      python3) pkgs+=(python3) ;;
    esac
  done
  echo "run.sh: missing: ${missing[*]}" >&2
  echo "install them with:  apt-get install -y ${pkgs[*]}" >&2
  exit 3
fi
if [ "$(nproc)" -lt 2 ]; then
  echo "run.sh: needs 2 CPUs (upstream on CPU 0, subjects on CPU 1); this machine has $(nproc)" >&2
  exit 3
fi

mkdir -p "$HERE/results"
pointer="$HERE/results/.current-pidfile"

cleanup() {
  # harness.py stops its own processes; this catches whatever is left if it died abruptly
  if [ -f "$pointer" ]; then
    pidfile="$(cat "$pointer")"
    if [ -f "$pidfile" ]; then
      while read -r pid; do
        [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
      done < "$pidfile"
      sleep 1
      while read -r pid; do
        [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
      done < "$pidfile"
      rm -f "$pidfile"
    fi
    rm -f "$pointer"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cmd="paduraksa-bench/e2e/run.sh${*:+ $*}"
E2E_PIDFILE_POINTER="$pointer" "$PY" "$HERE/harness.py" --command-line "$cmd" "$@"
