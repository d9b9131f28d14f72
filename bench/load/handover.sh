#!/usr/bin/env bash
# handover.sh -- reloads under a churn of new connections: the listening sockets passed to the new process
# (-sf <old> -x <admin socket>, 'stats socket ... expose-fd listeners') or bound anew beside the old ones (-sf only),
# Sluice against HAProxy 2.6.
#
# Usage:  ./handover.sh [TARGET...]     (default: sluice-x sluice-nox haproxy-x haproxy-nox)
# For each target, RELOADS [10] reloads under wrk -t2 -c CONNS [50] with 'Connection: close' (one request per
# connection); prints the time from the launch of each new process to its first answer (its pid in the body, polled
# every 2 ms), p50 and p99 (the max of 10), and what the clients lost: wrk's socket errors (connect = refused,
# read = reset or closed without an answer) and non-2xx answers. See handover.py. Ports 27700-27703.
# Sluice runs through the launcher (SLUICE_JAR: another jar, used as is).
set -u -o pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
RUN=${RUN_DIR:-$BENCH/run}
for t in wrk haproxy python3; do
    command -v "$t" > /dev/null || { echo "missing tool: $t" >&2; exit 1; }
done
mkdir -p "$RUN"
exec python3 "$BENCH/handover.py" "$RUN" "$@"
