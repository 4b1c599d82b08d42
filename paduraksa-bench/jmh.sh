#!/usr/bin/env bash
# Runs the hot-path JMH suite with the GC profiler and writes results to paduraksa-bench/target/jmh-result.json.
# Usage: paduraksa-bench/jmh.sh [JMH args, e.g. a benchmark regex such as 'Gate|HostTable']
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[1-9]|[3-9][0-9])'; then
  JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
export JAVA_HOME
./mvnw -B -q -pl paduraksa-bench -am package -DskipTests
flags=(--enable-native-access=ALL-UNNAMED -Dio.netty.leakDetection.level=disabled)
if "$JAVA_HOME/bin/java" --sun-misc-unsafe-memory-access=allow -version >/dev/null 2>&1; then
  flags+=(--sun-misc-unsafe-memory-access=allow)
fi
jvm_args="${flags[*]}"
exec "$JAVA_HOME/bin/java" "${flags[@]}" -jar paduraksa-bench/target/benchmarks.jar \
  -jvmArgsAppend "$jvm_args" -prof gc -rf json -rff paduraksa-bench/target/jmh-result.json "$@"
