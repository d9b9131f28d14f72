#!/bin/bash
# conn-cost.sh -- the fixed cost of a layer-4 connection (issue 16's t-conn scenario: wrk, 50 connections, one
# request each with "Connection: close", through a mode tcp frontend to the nginx origin), counted rather than timed,
# so that it can be read on a shared, loaded machine where CPU microseconds per request move by tens of percent:
#   - system calls per connection of the proxy (strace -c -f over a 4 s load; futex and memory calls left out),
#   - bytes allocated per connection and exceptions made per connection (JFR, Sluice only; 5 s + 10 s of load,
#     warm-up included, the same for every jar).
#
#   ./conn-cost.sh sluice [JAR]     # default: ../../proxy/target/sluice.jar
#   ./conn-cost.sh haproxy          # system calls only
#
# Uses the configurations run-all.sh renders into run/conf: run it once first
# (DURATION=1 SCENARIOS=t-conn NO_DIRECT=1 ./run-all.sh sluice-tcp haproxy-tcp). Needs strace, wrk, nginx, haproxy.
# The proxy and the origin run on CPU 1, wrk on CPU 0; every process started is stopped by its PID.
set -u
cd "$(dirname "$0")"
# CONF=-tcp (default): the mode tcp frontends; CONF= (empty): the HTTP frontends of sluice.cfg / haproxy.cfg (f-h1-close)
CONF=${CONF--tcp}
W=$PWD/run
[[ -f $W/conf/sluice$CONF.cfg && -f $W/conf/haproxy$CONF.cfg ]] || { echo "run ./run-all.sh once first (see the header)" >&2; exit 2; }
mkdir -p "$W/tmp"
JDK=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
TARGET=${1:-sluice}
JAR=${2:-$PWD/../../proxy/target/sluice.jar}
OUT=$(mktemp -d)

start() {   # JFR(0|1) -> sets OPID PP PX PORT
    taskset -c 1 /usr/sbin/nginx -p "$W/" -c "$W/conf/origin.conf" -g 'daemon off;' >/dev/null 2>&1 & OPID=$!
    sleep 0.5
    if [[ $TARGET == sluice ]]; then
        local jfr=""
        [[ $1 == 1 ]] && jfr="-XX:StartFlightRecording=settings=profile"
        taskset -c 1 env SLUICE_AOT=off SLUICE_JAR="$JAR" SLUICE_JAVA_OPTS="-Xms512m -Xmx512m $jfr" ../../sluice -f "$W/conf/sluice$CONF.cfg" >"$OUT/proxy.log" 2>&1 & PP=$!
        PORT=$(awk '/bind/ {split($2,a,":"); print a[2]; exit}' "$W/conf/sluice$CONF.cfg")
    else
        taskset -c 1 haproxy -f "$W/conf/haproxy$CONF.cfg" >"$OUT/proxy.log" 2>&1 & PP=$!
        PORT=$(awk '/bind/ {split($2,a,":"); print a[2]; exit}' "$W/conf/haproxy$CONF.cfg")
    fi
    for _ in $(seq 400); do curl -s -o /dev/null "http://127.0.0.1:$PORT/hello" && break; sleep 0.1; done
    PX=$(pgrep -P "$PP" java || echo "$PP")
}
stop() { kill "$PX" "$PP" 2>/dev/null; sleep 2; kill "$OPID" 2>/dev/null; wait 2>/dev/null; }
load() {    # SECONDS CONNECTIONS -> requests made
    taskset -c 0 wrk -t1 -c"$2" -d"$1"s -H 'Connection: close' "http://127.0.0.1:$PORT/hello" | awk '/requests in/ {print $1}'
}

# ---- system calls per connection
start 0
load 5 50 >/dev/null
timeout -s INT 6 strace -c -f -p "$PX" -o "$OUT/strace.txt" 2>/dev/null & SP=$!
sleep 0.5
load 4 20 >/dev/null
wait $SP
stop
python3 - "$OUT/strace.txt" "$TARGET" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and l.split()[0][0].isdigit()]
calls = {r[-1]: int(r[3]) for r in rows if len(r) >= 5}
conns = calls.get('accept4', calls.get('accept', 0)) or 1
skip = {'total', 'futex', 'restart_syscall', 'madvise', 'mprotect', 'mmap', 'munmap', 'brk', 'read', 'lseek', 'rt_sigreturn', 'timer_settime'}
per = {k: v / conns for k, v in calls.items() if k not in skip}
print(f"{sys.argv[2]}: {conns} connections, {sum(per.values()):.1f} system calls per connection")
print("  " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(per.items(), key=lambda x: -x[1]) if v >= 0.1))
PY

# ---- allocation and exceptions per connection (Sluice; STRACE_ONLY=1 skips it)
if [[ $TARGET == sluice && -z ${STRACE_ONLY:-} ]]; then
    start 1
    N=$(( $(load 5 50) + $(load 10 50) ))
    "$JDK/bin/jcmd" "$PX" JFR.dump filename="$OUT/rec.jfr" >/dev/null
    stop
    "$JDK/bin/jfr" print --events jdk.ThreadAllocationStatistics,jdk.ExceptionStatistics "$OUT/rec.jfr" | python3 -c "
import re, sys
text = sys.stdin.read()
unit = {'bytes': 1, 'kB': 1024, 'MB': 1024 ** 2, 'GB': 1024 ** 3}
per_thread = {}
for e in text.split('jdk.ThreadAllocationStatistics')[1:]:
    a = re.search(r'allocated = ([\d.]+) (\w+)', e); t = re.search(r'thread = \"([^\"]*)\"', e)
    if a and t:
        per_thread[t.group(1)] = max(per_thread.get(t.group(1), 0), float(a.group(1)) * unit[a.group(2)])
thrown = [int(x) for x in re.findall(r'throwables = (\d+)', text)]
n = $N
print(f'  {n} connections: {sum(per_thread.values()) / n:.0f} bytes allocated and {max(thrown) / n:.2f} exceptions per connection')
"
fi
[[ -n ${KEEP:-} ]] && cp "$OUT/strace.txt" "$KEEP"
rm -rf "$OUT"
