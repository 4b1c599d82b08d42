#!/usr/bin/env bash
# Builds the spike and runs the whole matrix; prints a table and writes results.txt next to this script.
# Usage: ./run.sh [warmup] [measured]      (defaults 20000 / 100000; about 2-3 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
JAVA="$JAVA_HOME/bin/java"
WARMUP="${1:-20000}"
MEASURED="${2:-100000}"
JAR=target/h1-decoder-allocation.jar
OUT=results.txt

../../mvnw -q -f pom.xml package 2>&1 | grep -v '^WARNING' || true
test -f "$JAR"

BASE=(--enable-native-access=ALL-UNNAMED -Dio.netty.leakDetection.level=disabled -Xms256m -Xmx256m)
UNSAFE=(--sun-misc-unsafe-memory-access=allow)
RAW_LINES=$(mktemp)
trap 'rm -f "$RAW_LINES"' EXIT

run() { # run <unsafe:yes|no> <allocator> <variant> <traffic> <transport>
  local flags=("${BASE[@]}" "-Dio.netty.allocator.type=$2")
  if [ "$1" = yes ]; then flags+=("${UNSAFE[@]}"); fi
  "$JAVA" "${flags[@]}" -jar "$JAR" "$3" "$4" "$5" "$WARMUP" "$MEASURED" 2>/dev/null \
    | grep -E '^(RESULT|FAILED)' | tee -a "$RAW_LINES"
}

{
  echo "# h1-decoder-allocation results  $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# host: $(uname -srm), $(nproc) cpus; $("$JAVA" -version 2>&1 | head -1)"
  echo "# warmup=$WARMUP measured=$MEASURED requests, one keep-alive connection, depth 1, one event-loop thread"
} > "$OUT"

# main matrix: variants x traffic x allocator, epoll, Unsafe allowed
for alloc in pooled adaptive; do
  for traffic in minimal browser; do
    for variant in raw decoder codec; do
      run yes "$alloc" "$variant" "$traffic" epoll
    done
  done
done
# transports (pooled, Unsafe allowed)
for transport in nio io_uring; do
  for traffic in minimal browser; do
    for variant in raw decoder; do
      run yes pooled "$variant" "$traffic" "$transport"
    done
  done
done
# JDK 25 without --sun-misc-unsafe-memory-access=allow
for alloc in pooled adaptive; do
  for variant in raw decoder; do
    run no "$alloc" "$variant" browser epoll
  done
done
run no pooled decoder minimal epoll
run no pooled raw minimal epoll
run no pooled raw minimal nio
# raw bytes written around HttpServerCodec's encoder: keep-alive stops after its pipeline depth (128)
CODEC_RAW=$("$JAVA" "${BASE[@]}" "${UNSAFE[@]}" -Dio.netty.allocator.type=pooled -Dspike.readTimeoutMs=2000 \
  -jar "$JAR" codec-raw minimal epoll 1000 1000 2>&1 || true)
{ echo "$CODEC_RAW" | grep -E '^(RESULT|FAILED)' || true
  echo "$CODEC_RAW" | grep -m1 -E '^Caused by: .*maxPipelineDepth' || true; } | tee -a "$RAW_LINES"

# table: B/request on the event-loop thread; "decoder cost" = variant minus raw with the same other columns
TABLE=$(awk '
  /^RESULT/ {
    for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    sub("ByteBufAllocator", "", f["allocator"]); f["allocator"] = tolower(f["allocator"])
    key = f["traffic"] "|" f["transport"] "|" f["allocator"] "|" f["unsafe"]
    n++; v[n] = f["variant"]; k[n] = key; p[n] = f["pipeline_B_per_req"]; t[n] = f["thread_B_per_req"]; r[n] = f["req_per_s"]
    if (f["variant"] == "raw") raw[key] = f["thread_B_per_req"]
  }
  END {
    printf "| %-8s | %-7s | %-9s | %-9s | %-6s | %10s | %10s | %11s | %7s |\n", "variant", "traffic", "transport", "allocator", "unsafe", "pipeline B", "thread B", "minus raw", "req/s"
    printf "|----------|---------|-----------|-----------|--------|-----------:|-----------:|------------:|--------:|\n"
    for (i = 1; i <= n; i++) {
      split(k[i], c, "|")
      d = (k[i] in raw) ? sprintf("%.1f", t[i] - raw[k[i]]) : "-"
      printf "| %-8s | %-7s | %-9s | %-9s | %-6s | %10s | %10s | %11s | %7s |\n", v[i], c[1], c[2], c[3], c[4], p[i], t[i], d, r[i]
    }
  }' "$RAW_LINES")

{ echo; echo "$TABLE"; echo; echo "# raw lines"; cat "$RAW_LINES"; } >> "$OUT"
echo
echo "$TABLE"
grep -E '^FAILED|maxPipelineDepth' "$RAW_LINES" | cut -c1-200 || true
echo "written to $(pwd)/$OUT"
