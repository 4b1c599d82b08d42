# Finds a Java 21+ runtime or JDK. Sourced (POSIX sh: dash, bash) by bin/paduraksa, ./mvnw and .ci/run,
# so all three pick the same Java the same way:
#   . bin/find-java.sh
#   JAVA_HOME=$(paduraksa_find_java jdk) || exit 1   # "jdk": it must have javac and jlink (the build)
#   JAVA_HOME=$(paduraksa_find_java) || exit 1       # a runtime is enough (the launcher)
# Order: $JAVA_HOME if it is 21+, else `java` on PATH if it is 21+, else the newest 21+ under
# $PADURAKSA_JVM_ROOT (default /usr/lib/jvm). When none fits it names on stderr what it found, with
# the Java version of each, and returns 1.

# Major version of the Java at $1: from its release file (no JVM start), else by asking it; 0 if unknown.
paduraksa_java_major() (
  v=""
  if [ -r "$1/release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release")
  fi
  if [ -z "$v" ] && [ -x "$1/bin/java" ]; then
    v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')
  fi
  echo "${v:-0}"
)

# Runs in a subshell (the parentheses): globbing is turned on for the scan (./mvnw runs with set -f)
# and nothing leaks into the caller.
paduraksa_find_java() (
  set +f
  kind=${1:-runtime}
  seen=""
  note() { case "$seen" in *" $1 ("*) ;; *) seen="$seen $1 ($2);" ;; esac; }
  fits() { # $1 = a Java home; true if it is 21+ (and a JDK when one is asked for)
    [ -x "$1/bin/java" ] || return 1
    if [ "$kind" = jdk ] && { [ ! -x "$1/bin/javac" ] || [ ! -x "$1/bin/jlink" ]; }; then
      note "$1" "no javac/jlink: a runtime, not a JDK"
      return 1
    fi
    major=$(paduraksa_java_major "$1")
    [ "$major" -ge 21 ] 2>/dev/null && return 0
    note "$1" "Java $major"
    return 1
  }
  if [ -n "${JAVA_HOME:-}" ]; then
    if fits "$JAVA_HOME"; then echo "$JAVA_HOME"; return 0; fi
  fi
  if on_path=$(command -v java 2>/dev/null) && [ -n "$on_path" ]; then
    dir=$(dirname "$(dirname "$(readlink -f "$on_path")")")
    if fits "$dir"; then echo "$dir"; return 0; fi
  fi
  best="" best_major=0
  for dir in "${PADURAKSA_JVM_ROOT:-/usr/lib/jvm}"/*; do
    [ -d "$dir" ] || continue
    if fits "$dir" && [ "$major" -gt "$best_major" ]; then best="$dir" best_major="$major"; fi
  done
  if [ -n "$best" ]; then echo "$best"; return 0; fi
  if [ "$kind" = jdk ]; then what="a JDK 21 or newer"; pkg=openjdk-21-jdk-headless; else what="Java 21 or newer"; pkg=openjdk-21-jre-headless; fi
  echo "paduraksa: needs $what; found:${seen:- no Java under JAVA_HOME, PATH or ${PADURAKSA_JVM_ROOT:-/usr/lib/jvm}}" >&2
  echo "paduraksa: install one (e.g. apt-get install $pkg on Debian 13 or Ubuntu 24.04; on Debian 12 a Temurin 21+ JDK) or set JAVA_HOME to it" >&2
  return 1
)
