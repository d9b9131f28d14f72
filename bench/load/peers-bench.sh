#!/usr/bin/env bash
# Issue 19: stick-table replication on the peers protocol.
#
#   ./peers-bench.sh            # DURATION=10 s per run (after WARMUP=5 s); PARTS="replication path" (both)
#
# 1. Replication: two Sluice processes in one peers section; wrk drives the first with a new key per request
#    (track-sc0 req.hdr(x-k) on a string table: every request is an update of another entry); the second's table
#    size after the run gives the updates/s it learned, and a prober (peers-lag.py) measures the lag of single
#    changes (set table on the first, polled on the second's admin socket every ms) during the load: p50/p99/max.
#    The same with HAProxy 2.6 as the first process (Sluice learning from HAProxy) for comparison.
# 2. The request path: the rate limiter (track-sc0 src, http_req_rate) with the table in a peers section with a live
#    peer (a second process of the same kind) vs the same table without peers, Sluice and HAProxy in one run: req/s
#    and CPU microseconds per request of the process under load (the peer's own CPU is printed apart).
# Ports 27600-27699. Frontends answer themselves (http-request return): no origin.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
D=${DURATION:-10}
W=${WARMUP:-5}
WORK=$(mktemp -d /tmp/peers-bench.XXXXXX)
HAPROXY=${HAPROXY:-haproxy}
SLUICE="$ROOT/sluice"
export SLUICE_JAVA_OPTS="-Xms512m -Xmx512m"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT

cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

wait_port() { for _ in $(seq 1 300); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "port $1 never opened" >&2; return 1; }

# cfg <file> <self> <http port> <peer port a> <peer port b> <table line> <frontend tracking lines> <sock>
cfg() {
  cat > "$1" <<EOF
global
    stats socket $8 level admin
    nbthread 2
defaults
    mode http
    timeout client 30s
    timeout server 30s
    timeout connect 5s
peers p
    peer a 127.0.0.1:$4
    peer b 127.0.0.1:$5
$6
    table k type string len 32 size 10k expire 10m store gpt0
frontend fe
    bind 127.0.0.1:$3
$7
    http-request return status 200
EOF
}

start() { # start <name> <kind> <self> <cfg>
  if [ "$2" = haproxy ]; then "$HAPROXY" -L "$3" -db -f "$4" > "$WORK/$1.log" 2>&1 &
  else "$SLUICE" -L "$3" -f "$4" > "$WORK/$1.log" 2>&1 &
  fi
  PIDS+=($!); echo $!
}

q() { echo "$2" | socat - "UNIX-CONNECT:$1"; }

echo "# peers bench $(date -u +%FT%TZ), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# Sluice $(git -C "$ROOT" rev-parse --short HEAD), $($HAPROXY -v | head -1)"

replication() { # replication <kind of the first process>
  local kind=$1
  local t="    table t type string len 32 size 2m expire 10m store http_req_cnt"
  local fe="    http-request track-sc0 req.hdr(x-k) table p/t"
  cfg "$WORK/r1.cfg" a 27601 27611 27612 "$t" "$fe" "$WORK/r1.sock"
  cfg "$WORK/r2.cfg" b 27602 27611 27612 "$t" "$fe" "$WORK/r2.sock"
  local p1 p2
  p1=$(start r1 "$kind" a "$WORK/r1.cfg"); p2=$(start r2 sluice b "$WORK/r2.cfg")
  wait_port 27601 && wait_port 27602
  for _ in $(seq 1 100); do q "$WORK/r2.sock" "show peers" | grep -q ESTA && break; sleep 0.1; done
  wrk -t2 -c20 -d"${W}s" -s "$HERE/peers-keys.lua" http://127.0.0.1:27601/ > /dev/null
  sleep 1
  local u1 u2
  u2=$(q "$WORK/r2.sock" "show table" | grep "table: p/t," | sed -n 's/.*used:\([0-9]*\).*/\1/p')
  python3 "$HERE/peers-lag.py" "$WORK/r1.sock" "$WORK/r2.sock" "$D" > "$WORK/lag.txt" &
  local lag=$!
  local out
  out=$(wrk -t2 -c20 -d"${D}s" -s "$HERE/peers-keys.lua" http://127.0.0.1:27601/)
  wait $lag
  sleep 1
  local v2
  v2=$(q "$WORK/r2.sock" "show table" | grep "table: p/t," | sed -n 's/.*used:\([0-9]*\).*/\1/p')
  u1=$(q "$WORK/r1.sock" "show table" | grep "table: p/t," | sed -n 's/.*used:\([0-9]*\).*/\1/p')
  local rps
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  printf "replication %-8s -> sluice: driver %8s req/s, learned %7d entries in %ss = %8.0f updates/s (first process holds %s), lag %s\n" \
    "$kind" "$rps" $((v2 - u2)) "$D" "$(echo "($v2 - $u2) / $D" | bc -l)" "$u1" "$(cat "$WORK/lag.txt")"
  kill "$p1" "$p2"; wait "$p1" "$p2" 2>/dev/null
}

path() { # path <kind> <peers on|off>
  local kind=$1 on=$2
  local t fe
  if [ "$on" = on ]; then
    t="    table t type ip size 1m expire 30s store http_req_rate(10s)"
    fe="    http-request track-sc0 src table p/t
    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 1000000000 }"
  else
    t=""
    fe="    stick-table type ip size 1m expire 30s store http_req_rate(10s)
    http-request track-sc0 src
    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 1000000000 }"
  fi
  cfg "$WORK/p1.cfg" a 27621 27631 27632 "$t" "$fe" "$WORK/p1.sock"
  cfg "$WORK/p2.cfg" b 27622 27631 27632 "$t" "$fe" "$WORK/p2.sock"
  local p1 p2=""
  p1=$(start p1 "$kind" a "$WORK/p1.cfg")
  if [ "$on" = on ]; then p2=$(start p2 "$kind" b "$WORK/p2.cfg"); wait_port 27622; fi
  wait_port 27621
  wrk -t2 -c50 -d"${W}s" http://127.0.0.1:27621/ > /dev/null
  local c0 c1 pc0 pc1=0 out
  c0=$(cpu_ticks "$p1"); [ -n "$p2" ] && pc0=$(cpu_ticks "$p2")
  out=$(wrk -t2 -c50 -d"${D}s" http://127.0.0.1:27621/)
  c1=$(cpu_ticks "$p1"); [ -n "$p2" ] && pc1=$(( $(cpu_ticks "$p2") - pc0 ))
  local rps reqs
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  reqs=$(echo "$out" | awk '/requests in/ {print $1}')
  local peer=""
  [ -n "$p2" ] && peer=$(q "$WORK/p2.sock" "show table p/t" | grep -o 'http_req_rate(10000)=[0-9]*' | head -1)
  printf "request path %-8s peers %-3s: %9s req/s, %6.1f us CPU/request%s\n" "$kind" "$on" "$rps" \
    "$(echo "($c1 - $c0) * 1000000 / $hz / $reqs" | bc -l)" "${p2:+, the peer used $(echo "$pc1 * 1000 / $hz" | bc) ms CPU and shows $peer}"
  kill "$p1" $p2; wait "$p1" $p2 2>/dev/null
}

PARTS=${PARTS:-replication path}
case " $PARTS " in *" replication "*)
  replication sluice
  replication haproxy ;;
esac
case " $PARTS " in *" path "*)
  for round in 1 2; do
    for kind in haproxy sluice; do
      path "$kind" off
      path "$kind" on
    done
  done ;;
esac
