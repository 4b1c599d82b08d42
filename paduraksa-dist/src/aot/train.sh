#!/usr/bin/env bash
# Builds the ahead-of-time cache lib/paduraksa.aot (JEP 483, 514, 515: classes loaded and linked, and
# method profiles, from a training run) for the staged package. Called by the exec plugin after the
# runtime is staged:  train.sh STAGE_DIR REPO_ROOT [SECONDS]
# The training run is the package's own launcher on its own runtime (the cache is only valid for that
# runtime and that class path), serving train.yaml under train.py's traffic; the JVM writes the cache
# when it exits on SIGTERM. A runtime older than Java 25 has no one-step training: no cache then.
set -euo pipefail
stage=$(cd "$1" && pwd) repo=$(cd "$2" && pwd) seconds=${3:-20}
here=$(cd "$(dirname "$0")" && pwd)
java=$stage/runtime/bin/java
major=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
rm -f "$stage/lib/paduraksa.aot"
if [ "${major%%.*}" -lt 25 ]; then
  echo "train.sh: the runtime is Java $major; the AOT cache needs 25 or newer: none built"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work" "$stage/bin"' EXIT
# The launcher as the package runs it (bin/ next to lib/ and runtime/), so the class path is the same.
mkdir -p "$stage/bin"
cp "$repo/bin/paduraksa" "$repo/bin/find-java.sh" "$stage/bin/"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
public=$(free_port) origin=$(free_port)
sed -e "s/@PUBLIC@/$public/" -e "s/@ORIGIN@/$origin/" "$here/train.yaml" > "$work/train.yaml"
env -u JAVA_OPTS PADURAKSA_JAVA_OPTS="-XX:AOTCacheOutput=$stage/lib/paduraksa.aot -Xlog:aot=error,cds=error" \
  "$stage/bin/paduraksa" run --config "$work/train.yaml" > "$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$public") 2>/dev/null; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then cat "$work/server.log"; echo "train.sh: the server did not start" >&2; exit 1; fi
  sleep 0.1
done
if ! python3 "$here/train.py" "$public" "$seconds"; then
  kill -TERM "$pid"; wait "$pid" || true
  cat "$work/server.log"
  echo "train.sh: training traffic failed" >&2
  exit 1
fi
kill -TERM "$pid"
wait "$pid" || { cat "$work/server.log"; echo "train.sh: the server exited with an error" >&2; exit 1; }
if [ ! -s "$stage/lib/paduraksa.aot" ]; then
  cat "$work/server.log"; echo "train.sh: no AOT cache written" >&2; exit 1
fi
echo "train.sh: $(du -h "$stage/lib/paduraksa.aot" | cut -f1) AOT cache from a ${seconds} s training run"
