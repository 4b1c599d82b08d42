#!/usr/bin/env bash
# Which transport should "auto" pick? Runs Paduraksa on io_uring, epoll and NIO in turn (order
# alternating every round), loads a gate-answered route with wrk (browser-like headers, keep-alive),
# and prints per transport: requests/s, CPU microseconds per request of the server process, and
# whole-process bytes allocated per request (from the admin listener's JVM counter).
# Usage: spikes/transport-choice/run.sh [rounds] [seconds]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
secs=${2:-8}
for tool in wrk curl taskset; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install wrk curl util-linux)" >&2; exit 1; }
done
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
bin/paduraksa --version >/dev/null   # builds once if needed

cat > "$work/browser.lua" <<'LUA'
local paths = {}
for i = 1, 64 do paths[i] = "/static?page=" .. i .. "&ref=" .. (i * 7) end
local n = 0
request = function()
  n = n + 1
  local h = {}
  h["Host"] = "a.test"
  h["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
  h["Accept"] = (n % 2 == 0) and "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" or "*/*"
  h["Accept-Encoding"] = "gzip, deflate, br, zstd"
  h["Accept-Language"] = "en-US,en;q=0.9"
  h["sec-ch-ua"] = '"Chromium";v="131", "Not_A Brand";v="24"'
  h["sec-ch-ua-mobile"] = "?0"
  h["sec-ch-ua-platform"] = '"Linux"'
  h["sec-fetch-site"] = "same-origin"
  h["sec-fetch-mode"] = "navigate"
  h["sec-fetch-dest"] = "document"
  h["priority"] = "u=0, i"
  h["Cookie"] = "session=abc123def456; theme=dark; consent=yes"
  h["Referer"] = "https://a.test/page/" .. (n % 17)
  return wrk.format("GET", paths[(n % 64) + 1], h)
end
LUA

run_one() {
  local transport=$1
  cat > "$work/t.yaml" <<YAML
listeners:
  - {name: public, address: "127.0.0.1:18380", protocols: [http1]}
  - {name: admin, address: "127.0.0.1:18381", admin: true}
server: {transport: $transport, threads: 1}
policies:
  bots: {type: user_agent, deny: [sqlmap, nikto, masscan]}
  no-admin: {type: path, deny: [/admin]}
hosts:
  - names: [a.test]
    policies: [bots, no-admin]
    routes:
      - {path: /static, respond: {status: 200, body: "0123456789abcdef"}}
YAML
  taskset -c 1 bin/paduraksa run --config "$work/t.yaml" > "$work/server.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do curl -sf http://127.0.0.1:18381/ready >/dev/null 2>&1 && break; sleep 0.1; done
  taskset -c 0 wrk -t1 -c16 -d3s -s "$work/browser.lua" http://127.0.0.1:18380/ >/dev/null   # warm-up
  local a0 c0 a1 c1 out
  a0=$(curl -s http://127.0.0.1:18381/metrics | awk '/^paduraksa_jvm_allocated_bytes_total/ {print $2}')
  c0=$(awk '{print $14+$15}' "/proc/$pid/stat")
  out=$(taskset -c 0 wrk -t1 -c16 -d"${secs}s" -s "$work/browser.lua" http://127.0.0.1:18380/)
  c1=$(awk '{print $14+$15}' "/proc/$pid/stat")
  a1=$(curl -s http://127.0.0.1:18381/metrics | awk '/^paduraksa_jvm_allocated_bytes_total/ {print $2}')
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  local reqs rps
  reqs=$(echo "$out" | awk '/requests in/ {print $1}')
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  local hz; hz=$(getconf CLK_TCK)
  python3 - "$transport" "$reqs" "$rps" "$c0" "$c1" "$hz" "$a0" "$a1" <<'PY'
import sys
t, reqs, rps, c0, c1, hz, a0, a1 = sys.argv[1:]
reqs = int(reqs); cpu_us = (int(c1) - int(c0)) * 1e6 / int(hz)
print(f"{t:9s} {float(rps):10.0f} req/s  {cpu_us / reqs:7.2f} CPU us/req  {(int(a1) - int(a0)) / reqs:8.1f} B/req (whole process, incl. admin scrape)")
PY
}

order=(io_uring epoll nio)
for r in $(seq 1 "$rounds"); do
  echo "round $r"
  if (( r % 2 == 0 )); then list=(nio epoll io_uring); else list=("${order[@]}"); fi
  for t in "${list[@]}"; do run_one "$t"; done
done
