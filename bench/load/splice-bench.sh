#!/usr/bin/env bash
# Proxy CPU microseconds per MiB of a mode tcp relay, copy against splice, Sluice against HAProxy: COUNT transfers of
# 1 MiB each way (down: server to client, up: client to server) over THREADS connections at a time, through each
# proxy in turn (one process at a time), from a Python origin and client (their CPU is not counted). Every process
# started is stopped by its PID. Usage: ./splice-bench.sh [COUNT] [THREADS]   (SLUICE_JAR: the jar to run)
set -euo pipefail
cd "$(dirname "$0")"
COUNT=${1:-300}
THREADS=${2:-8}
JAR=${SLUICE_JAR:-../../proxy/target/sluice.jar}
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
RUN=${RUN_DIR:-run}/splice
mkdir -p "$RUN"
DOWN=19102 UP=19103 PDOWN=19112 PUP=19113
TCK=$(getconf CLK_TCK)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
python3 splice-bench.py origin $DOWN $UP & PIDS+=($!)
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
conf() {  # SPLICE(on|off)
  cat <<CFG
global
    maxconn 1000
defaults
    mode tcp
    timeout connect 2s
    timeout client 30s
    timeout server 30s
$( [[ $1 == on ]] && echo "    option splice-auto" )
listen down
    bind 127.0.0.1:$PDOWN
    server s1 127.0.0.1:$DOWN
listen up
    bind 127.0.0.1:$PUP
    server s1 127.0.0.1:$UP
CFG
}
printf '%-8s %-6s %10s %10s\n' proxy splice 'down us/MiB' 'up us/MiB'
for proxy in sluice haproxy; do
  for sp in off on; do
    conf $sp > "$RUN/$proxy-$sp.cfg"
    if [[ $proxy == sluice ]]; then
      "$JAVA" -jar "$JAR" -f "$RUN/$proxy-$sp.cfg" > "$RUN/$proxy-$sp.log" 2>&1 & pid=$!
    else
      haproxy -f "$RUN/$proxy-$sp.cfg" > "$RUN/$proxy-$sp.log" 2>&1 & pid=$!
    fi
    PIDS+=($pid)
    for _ in $(seq 100); do (echo > /dev/tcp/127.0.0.1/$PUP) 2>/dev/null && break; sleep 0.1; done
    # warm-up (the JIT), then the measured runs
    python3 splice-bench.py client down $PDOWN $((COUNT / 3)) "$THREADS" > /dev/null
    python3 splice-bench.py client up $PUP $((COUNT / 3)) "$THREADS" > /dev/null
    res=()
    for dir in down up; do
      port=$PDOWN; [[ $dir == up ]] && port=$PUP
      t0=$(ticks $pid)
      mib=$(python3 splice-bench.py client $dir $port "$COUNT" "$THREADS")
      t1=$(ticks $pid)
      res+=("$(awk -v t=$((t1 - t0)) -v m="$mib" -v h="$TCK" 'BEGIN{printf "%.0f", t * 1e6 / h / m}')")
    done
    printf '%-8s %-6s %10s %10s\n' $proxy $sp "${res[0]}" "${res[1]}"
    kill $pid; wait $pid 2>/dev/null || true
  done
done
