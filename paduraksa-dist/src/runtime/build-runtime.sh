#!/usr/bin/env bash
# Builds the Java runtime bundled with the tarball and the .deb: a jlink image of the JDK that runs the
# build, holding only the modules the server needs (called by the exec plugin at prepare-package).
#   build-runtime.sh JDK_HOME MODULES OUTPUT_DIR
# The image has the build JDK's version (OUTPUT_DIR/release says which). jlink needs the JDK's jmods/
# directory or a JDK built with linkable run-time images (JEP 493, e.g. Temurin 24+); Debian's and
# Ubuntu's openjdk-*-jdk-headless keep jmods in a separate package, openjdk-NN-jmods.
set -euo pipefail
jdk=$1 modules=$2 out=$3
if [ ! -x "$jdk/bin/jlink" ]; then
  echo "build-runtime: $jdk has no bin/jlink: build with a full JDK 21+ (not a JRE)" >&2
  exit 1
fi
rm -rf "$out"
mkdir -p "$(dirname "$out")"
# --strip-debug: no Java debug attributes; no man pages or C headers. The modules file stays
# uncompressed (--compress=zip-0): measured on JDK 25.0.3, zip-6 shrinks the image on disk from 71 to
# 49 MB but the .deb (xz) grows from 16 to 25 MB and the tar.gz from 23 to 28 MB, because the
# packages compress better than jimage does; uncompressed classes also load without inflating.
if ! "$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
    --compress=zip-0 --output "$out"; then
  echo "build-runtime: jlink failed; a JDK without jmods/ needs them installed (Debian/Ubuntu: openjdk-NN-jmods)" >&2
  exit 1
fi
echo "built runtime $out ($(sed -n 's/^JAVA_VERSION=//p' "$out/release" | tr -d '"'), $(du -sh "$out" | cut -f1), modules $modules)"
