#!/usr/bin/env bash
# The master's footprint in master-worker mode (docs/design.md, "Master-worker mode"). For each tree given (its launcher
# and its jar, with the start-up cache `./sluice aot` made for it): starts `<tree>/sluice -W -S <socket> -f <config>`
# (the quickstart moved to ports 18480-18482), waits for the first answer, asks the master CLI `show proc` once, waits
# SETTLE (10) seconds, then reads the master's VmRSS, RssAnon and RssFile (/proc/<pid>/status) and its threads; RUNS (3)
# times. One more start with -Xlog:class+load counts the classes the master loaded by then, and asks its heap (jcmd
# GC.heap_info, after the RSS was read). HAProxy's master (`haproxy -W -S`) is measured the same way when installed.
# usage: bench/load/master-footprint.sh <tree>...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
SETTLE=${SETTLE:-10}
RUNS=${RUNS:-3}
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME
sed 's/808\([0-2]\)/1848\1/g' "$here/../../examples/quickstart.cfg" > "$work/q.cfg"

answer() { # waits up to 30 s for the quickstart's first answer
  for _ in $(seq 1 600); do curl -s -o /dev/null http://127.0.0.1:18480/ && return 0; sleep 0.05; done
  return 1
}

status() { grep -E '^(VmRSS|RssAnon|RssFile|Threads):' "/proc/$1/status" | tr -s ' \t' ' ' | tr '\n' ' '; }

stop() { kill -TERM "$1"; wait "$1" 2>/dev/null || true; }

for tree in "$@"; do
  for r in $(seq 1 "$RUNS"); do
    rm -f "$work/m.sock"
    SLUICE_JAR="$tree/proxy/target/sluice.jar" "$tree/sluice" -W -S "$work/m.sock" -f "$work/q.cfg" > "$work/out.log" 2>&1 &
    pid=$!
    answer || { echo "$tree: no answer"; cat "$work/out.log"; stop $pid; exit 1; }
    echo "show proc" | socat - "UNIX-CONNECT:$work/m.sock" > /dev/null
    sleep "$SETTLE"
    echo "$tree run $r: master $(status $pid)"
    stop $pid
  done
  rm -f "$work/m.sock" "$work"/cl-*.log
  SLUICE_JAVA_OPTS="-Xlog:class+load:file=$work/cl-%p.log" SLUICE_JAR="$tree/proxy/target/sluice.jar" \
    "$tree/sluice" -W -S "$work/m.sock" -f "$work/q.cfg" > "$work/out.log" 2>&1 &
  pid=$!
  answer
  echo "show proc" | socat - "UNIX-CONNECT:$work/m.sock" > /dev/null
  sleep "$SETTLE"
  echo "$tree: master classes loaded $(grep -c 'class,load' "$work/cl-$pid.log"), heap: $("$JAVA_HOME/bin/jcmd" $pid GC.heap_info | grep -E 'total .*used' | sed 's/\[.*//; s/  */ /g' | tr '\n' ';')"
  stop $pid
done

if command -v haproxy > /dev/null; then
  for r in $(seq 1 "$RUNS"); do
    rm -f "$work/h.sock"
    haproxy -W -S "$work/h.sock" -f "$work/q.cfg" > "$work/hout.log" 2>&1 &
    pid=$!
    answer
    sleep 1
    echo "show proc" | socat - "UNIX-CONNECT:$work/h.sock" > /dev/null
    sleep "$SETTLE"
    echo "$(haproxy -v | head -n 1 | cut -d' ' -f1-3) run $r: master $(status $pid)"
    stop $pid
  done
fi
