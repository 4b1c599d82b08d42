#!/usr/bin/env bash
# WAF bench: Paduraksa's `attacks` policy next to nginx + ModSecurity v3 + CRS 3.3 (README.md).
#   paduraksa-bench/waf/run.sh [--pls 1,2] [--benign 10000] [--seed N] [--skip-cost | --cost-only] [--named-headers] [--crs-headers] [--no-paduraksa] [--help]
#   paduraksa-bench/waf/run.sh --check-data    # offline check of the data and the generator (CI-safe, ~1 s)
# Needs nginx with Debian's ModSecurity and echo modules, CRS 3.3, wrk, taskset, /usr/bin/python3.
# It installs nothing and needs no network; every process it starts is stopped by PID (trap below).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY=/usr/bin/python3

# offline data check (CI): no servers, no tools but python3
for arg in "$@"; do
  if [ "$arg" = "--check-data" ]; then exec "$PY" "$HERE/wafbench.py" --check-data; fi
done

missing=()
command -v nginx >/dev/null 2>&1 || missing+=(nginx)
[ -f /usr/lib/nginx/modules/ngx_http_modsecurity_module.so ] || missing+=(libnginx-mod-http-modsecurity)
[ -f /usr/lib/nginx/modules/ngx_http_echo_module.so ] || missing+=(libnginx-mod-http-echo)
[ -d /usr/share/modsecurity-crs/rules ] || missing+=(modsecurity-crs)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v taskset >/dev/null 2>&1 || missing+=(util-linux)
[ -x "$PY" ] || missing+=(python3)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "run.sh: missing: ${missing[*]}" >&2
  echo "install them with:  apt-get install -y nginx libnginx-mod-http-modsecurity libnginx-mod-http-echo modsecurity-crs wrk util-linux python3" >&2
  exit 3
fi
if [ "$(nproc)" -lt 2 ]; then
  echo "run.sh: needs 2 CPUs (load generator on CPU 0, subjects on CPU 1)" >&2
  exit 3
fi

mkdir -p "$HERE/results"
pointer="$HERE/results/.current-pidfile"
cleanup() {
  if [ -f "$pointer" ]; then
    pidfile="$(cat "$pointer")"
    if [ -f "$pidfile" ]; then
      while read -r pid; do [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true; done < "$pidfile"
      sleep 1
      while read -r pid; do [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true; done < "$pidfile"
      rm -f "$pidfile"
    fi
    rm -f "$pointer"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cmd="paduraksa-bench/waf/run.sh${*:+ $*}"
WAF_PIDFILE_POINTER="$pointer" "$PY" "$HERE/wafbench.py" --command-line "$cmd" "$@"
