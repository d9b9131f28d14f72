#!/usr/bin/env bash
# handover.sh -- reloads under a churn of new connections: the listening sockets passed to the new process
# (-sf <old> -x <admin socket>, 'stats socket ... expose-fd listeners') or bound anew beside the old ones (-sf only),
# Sluice against HAProxy 2.6.
#
# Usage:  ./handover.sh [TARGET...]     (default: sluice-x sluice-nox haproxy-x haproxy-nox)
#   e.g. RELOADS=5 ./handover.sh sluice-x sluice-nox haproxy-x haproxy-nox sluice-x sluice-nox haproxy-x haproxy-nox
#   (a target named twice runs twice, interleaved with the others against the machine's drift; runs add up)
# For each run, RELOADS [10] reloads under wrk -t2 -c CONNS [50] with 'Connection: close' (one request per
# connection); prints the time from the launch of each new process to its first answer (its pid in the body, polled
# every 2 ms), p50, p99 and max per target, and what the clients lost: wrk's socket errors (connect = refused,
# read = reset or closed without an answer) and non-2xx answers. See handover.py. Ports 27700 and up, one per run.
# Sluice runs through the launcher (SLUICE_JAR: another jar, used as is).
set -u -o pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
RUN=${RUN_DIR:-$BENCH/run}
for t in wrk haproxy python3; do
    command -v "$t" > /dev/null || { echo "missing tool: $t" >&2; exit 1; }
done
mkdir -p "$RUN"
exec python3 "$BENCH/handover.py" "$RUN" "$@"
