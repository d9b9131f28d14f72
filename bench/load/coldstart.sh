#!/usr/bin/env bash
# coldstart.sh -- start-up time, warm-up curve and memory under load of freshly started proxies (issue 17).
#
# Usage:  ./coldstart.sh [TARGET...]     (default: haproxy sluice)
#   TARGET: haproxy | sluice (the launcher's defaults: no -Xms/-Xmx, unlike run-all.sh's line) |
#           sluice-base (the same from another jar: SLUICE_BASE_JAR=<jar>, for before/after in one run;
#           SLUICE_BASE_LAUNCHER=<launcher> to start it through another launcher, e.g. main's) | sluice-own (a start-up
#           cache trained on its own configuration: ./sluice aot -f <cfg>, run here before the measures) |
#           sluice-noaot (SLUICE_AOT=off)
#
# 1. Start-up: STARTS launches of each target on the quickstart (examples/quickstart.cfg, its ports moved)
#    and on the bench configuration (conf/<target>.cfg: h1, TLS, h2c and, for Sluice, QUIC listeners),
#    alternating targets; launch to the first 200 answer on the first h1 listener, polled every 2 ms by
#    first-answer.py from an already running process. RSS once answering.
# 2. Warm-up curve: for each protocol of PROTOS (h1: h2load --h1 -c50; h2c and tls: h2load -c16 -m20), each
#    target is started, and once it answers h2load runs SLICES back-to-back slices of SLICE seconds. Per slice:
#    requests/s, proxy CPU us per request, proxy RSS at the slice's end.
# Prints per target: start-up medians and spread, the curve, requests/s over the first 10 s and its ratio to
# haproxy, the first slice that reaches 90 % of the target's own steady rate (median of the last 3 slices),
# steady CPU us/request, RSS max. Pinning as run-all.sh (load on CLIENT_CPUS, origin and proxy on SERVER_CPUS).
#
# Environment: STARTS [5]  SLICES [15]  SLICE [2]  PROTOS ["h1 h2c tls"]  ROUNDS [1] (curve repetitions,
# interleaved)  SKIP_STARTUP=1  SKIP_CURVE=1  SLUICE_BENCH_OPTS (extra JVM flags of every Sluice target)
set -u -o pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
RUN=${RUN_DIR:-$BENCH/run}
# shellcheck source=lib.sh
. "$BENCH/lib.sh"

NCPU=$(nproc --all)
CLIENT_CPUS=${CLIENT_CPUS:-0}
if ((NCPU > 1)); then SERVER_CPUS=${SERVER_CPUS:-1}; else SERVER_CPUS=${SERVER_CPUS:-0}; fi
ORIGIN_CPUS=${ORIGIN_CPUS:-$SERVER_CPUS}
PROXY_CPUS=${PROXY_CPUS:-$SERVER_CPUS}
STARTS=${STARTS:-5}
SLICES=${SLICES:-15}
SLICE=${SLICE:-2}
PROTOS=${PROTOS:-h1 h2c tls}
ROUNDS=${ROUNDS:-1}
CLK_TCK=$(getconf CLK_TCK)
PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3

for t in h2load taskset openssl ss awk sort timeout; do
    command -v "$t" > /dev/null || die "missing tool: $t"
done

load_proxy_table "$BENCH/proxies.conf"
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(haproxy sluice)

# Sluice targets run with the launcher's defaults (run-all.sh's lines fix -Xms512m -Xmx512m).
define() {             # NAME H1 TLS H2C H3 CMD
    P_H1[$1]=$2 P_TLS[$1]=$3 P_H2C[$1]=$4 P_H3[$1]=$5 P_CMD[$1]=$6
}
# Ports of their own (27500-27599), so that this runs beside run-all.sh.
SO='SLUICE_JAVA_OPTS="${SLUICE_BENCH_OPTS:-}"'
define origin 27500 27501 27502 - "${P_CMD[origin]}"
define haproxy 27510 27511 27512 - "${P_CMD[haproxy]}"
define sluice 27520 27521 27522 27521 "env $SO ../../sluice -f @CONF@/sluice.cfg"
define sluice-noaot 27530 27531 27532 27531 "env SLUICE_AOT=off $SO ../../sluice -f @CONF@/sluice-noaot.cfg"
# Sluice with a start-up cache trained on its own configuration (./sluice aot -f <cfg>, done by this script
# once the origin is up, for the bench configuration and the quickstart)
define sluice-own 27590 27591 27592 27591 "env $SO ../../sluice -f @CONF@/sluice-own.cfg"
define sluice-base 27540 27541 27542 27541 "env SLUICE_JAR=\${SLUICE_BASE_JAR:?set SLUICE_BASE_JAR} $SO ${SLUICE_BASE_LAUNCHER:-../../sluice} -f @CONF@/sluice-base.cfg"
# quickstart variants: NAME-qs, examples/quickstart.cfg with 8080-8082 moved to PORT..PORT+2
qs_port() { case $1 in haproxy) echo 27550 ;; sluice) echo 27560 ;; sluice-base) echo 27570 ;; sluice-noaot) echo 27580 ;; *) echo 27595 ;; esac; }
for t in "${TARGETS[@]}"; do
    [[ -n ${P_CMD[$t]:-} ]] || die "unknown target '$t'"
    p=$(qs_port "$t")
    cmd=${P_CMD[$t]}
    if [[ $t == haproxy ]]; then cmd="/usr/sbin/haproxy -db -f @CONF@/quickstart-$p.cfg"
    else cmd="${cmd% -f *} -f @CONF@/quickstart-$p.cfg"; fi
    define "$t-qs" "$p" - - - "$cmd"
done

# ------------------------------------------------------------ prepare run/
mkdir -p "$RUN"/{tls,conf,logs,results}
if [[ ! -s $RUN/tls/bench.pem ]]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=localhost" \
        -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" \
        -keyout "$RUN/tls/key.pem" -out "$RUN/tls/cert.pem" 2> "$RUN/logs/openssl.log" || die "openssl failed"
    cat "$RUN/tls/cert.pem" "$RUN/tls/key.pem" > "$RUN/tls/bench.pem"
    echo rsa2048 > "$RUN/tls/type"
fi
for t in "${TARGETS[@]}"; do
    p=$(qs_port "$t")
    sed -e "s/8080/$p/g; s/8081/$((p + 1))/g; s/8082/$((p + 2))/g" "$BENCH/../../examples/quickstart.cfg" \
        > "$RUN/conf/quickstart-$p.cfg"
done
for n in origin "${TARGETS[@]}"; do
    for l in h1 tls h2c; do
        p=$(port_of "$n" $l)
        [[ $p == - ]] || ! port_busy "$p" || die "TCP port $p ($n $l) is already in use"
    done
done
ulimit -n "$(ulimit -Hn)" 2> /dev/null || true

STAMP=$(date +%Y%m%d-%H%M%S)
RES=$RUN/results/coldstart-$STAMP
mkdir -p "$RES"
TSV=$RES/coldstart.tsv
trap 'cleanup_all' EXIT
trap 'log "interrupted"; exit 130' INT TERM

{
    echo "# coldstart $STAMP host=$(uname -n) cpus=$NCPU loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# load on CPU $CLIENT_CPUS, origin and proxy on CPU $SERVER_CPUS; targets: ${TARGETS[*]}; SLUICE_BENCH_OPTS='${SLUICE_BENCH_OPTS:-}'"
    echo "# sluice jar: ${SLUICE_JAR:-proxy/target/sluice.jar}; base jar: ${SLUICE_BASE_JAR:--}"
} | tee "$RES/table.txt"

log "starting origin"
start_server origin "$ORIGIN_CPUS"
ORIGIN_PID=$SERVER_PID
wait_ready origin "$ORIGIN_PID" 20 || die "origin did not start"

for t in "${TARGETS[@]}"; do
    if [[ $t == sluice-own ]]; then
        render_conf sluice-own "$PROXY_CPUS"
        for cfg in "$RUN/conf/sluice-own.cfg" "$RUN/conf/quickstart-$(qs_port sluice-own).cfg"; do
            log "training the start-up cache of $cfg (./sluice aot -f)"
            (cd "$BENCH" && taskset -c "$PROXY_CPUS" ../../sluice aot -f "$cfg") 2>&1 | tail -1 >&2
        done
    fi
done

# ------------------------------------------------------------ 1. start-up
launch() {             # NAME -> sets SERVER_PID, FIRST_MS (or FAIL)
    local name=$1 port stamp=$RUN/.coldstart-t0 poller out=$RUN/.coldstart-ms
    port=$(port_of "$name" h1)
    rm -f "$stamp" "$out"
    taskset -c "$CLIENT_CPUS" "$PY" "$BENCH/first-answer.py" "$stamp" "$port" 60 > "$out" &
    poller=$!
    sleep 0.15
    START_STAMP=$stamp start_server "$name" "$PROXY_CPUS"
    wait "$poller"
    FIRST_MS=$(cat "$out")
    # CPU the process tree spent up to the first answer: steadier than the wall time on a shared machine
    FIRST_CPU_MS=$(( $(cpu_ticks $(tree_pids "$SERVER_PID")) * 1000 / CLK_TCK ))
}

if [[ -z ${SKIP_STARTUP:-} ]]; then
    for cfg in qs bench; do
        for ((i = 1; i <= STARTS; i++)); do
            for t in "${TARGETS[@]}"; do
                name=$t; [[ $cfg == qs ]] && name=$t-qs
                launch "$name"
                sleep 0.3
                rss=$(rss_kb "$(tree_pids "$SERVER_PID")")
                stop_tree "$SERVER_PID"
                printf 'startup\t%s\t%s\t%d\t%s\t%s\t%s\n' "$t" "$cfg" "$i" "$FIRST_MS" "$((rss / 1024))" "$FIRST_CPU_MS" >> "$TSV"
                log "start-up $cfg $t #$i: $FIRST_MS ms (CPU $FIRST_CPU_MS ms), idle RSS $((rss / 1024)) MiB"
            done
        done
    done
fi

# ------------------------------------------------------------ 2. warm-up curve
curve() {              # TARGET PROTO ROUND
    local t=$1 proto=$2 round=$3 port url args=() i pids t0 t1 c0 c1 raw reqs rps us rss
    case $proto in
        h1) port=$(port_of "$t" h1); url=http://127.0.0.1:$port/hello; args=(--h1 -t1 -c50) ;;
        h2c) port=$(port_of "$t" h2c); url=http://127.0.0.1:$port/hello; args=(-t1 -c16 -m20) ;;
        tls) port=$(port_of "$t" tls); url=https://127.0.0.1:$port/hello; args=(-t1 -c16 -m20) ;;
    esac
    launch "$t"
    [[ $FIRST_MS != FAIL ]] || { log "$t did not start"; stop_tree "$SERVER_PID"; return; }
    mapfile -t pids < <(tree_pids "$SERVER_PID")
    raw=$RES/curve.$t.$proto.$round.log
    for ((i = 1; i <= SLICES; i++)); do
        c0=$(cpu_ticks "${pids[@]}"); t0=$(date +%s%N)
        taskset -c "$CLIENT_CPUS" timeout -k 2 $((SLICE + 20)) h2load -D "$SLICE" "${args[@]}" "$url" > "$raw.$i" 2>&1
        t1=$(date +%s%N); c1=$(cpu_ticks "${pids[@]}")
        rss=$(rss_kb "${pids[@]}")
        reqs=$(awk '/^requests:/{print $8}' "$raw.$i"); reqs=${reqs:-0}
        read -r rps us < <(awk -v r="$reqs" -v a="$t0" -v b="$t1" -v c0="$c0" -v c1="$c1" -v tck="$CLK_TCK" \
            'BEGIN{ w=(b-a)/1e9; printf "%.0f %s\n", r/w, (r > 0 ? sprintf("%.1f", (c1-c0)/tck*1e6/r) : "-") }')
        printf 'curve\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n' "$t" "$proto" "$round" "$i" "$rps" "$us" "$((rss / 1024))" "$reqs" >> "$TSV"
        cat "$raw.$i" >> "$raw"; rm -f "$raw.$i"
    done
    stop_tree "$SERVER_PID"
    log "curve $proto $t #$round: $(awk -F'\t' -v t="$t" -v p="$proto" -v r="$round" '$1=="curve" && $2==t && $3==p && $4==r {printf "%s ", $6}' "$TSV")"
}

if [[ -z ${SKIP_CURVE:-} ]]; then
    for ((r = 1; r <= ROUNDS; r++)); do
        for proto in $PROTOS; do
            for t in "${TARGETS[@]}"; do curve "$t" "$proto" "$r"; done
        done
    done
fi
stop_tree "$ORIGIN_PID"

# ------------------------------------------------------------ report
{
    echo
    echo "## Start-up: launch to first 200 (ms), median [min-max] over $STARTS starts; CPU time spent by then (ms,"
    echo "## median, 10 ms ticks); RSS once answering (MiB)"
    awk -F'\t' '$1=="startup" { k=$2" "$3; ms[k]=ms[k]" "$5; rss[k]=rss[k]" "$6; cpu[k]=cpu[k]" "$7; if (!(k in seen)) { seen[k]=1; order[n++]=k } }
        function med(s,   a, m, i, j, t) { m=split(s, a, " "); for (i=1;i<=m;i++) for (j=i+1;j<=m;j++) if (a[j]+0 < a[i]+0) { t=a[i]; a[i]=a[j]; a[j]=t }
            lo=a[1]; hi=a[m]; return (m % 2 ? a[(m+1)/2] : (a[m/2]+a[m/2+1])/2) }
        END { printf "%-14s %-6s %10s %16s %8s %8s\n", "target", "config", "median_ms", "range_ms", "cpu_ms", "rss_MiB";
            for (i=0;i<n;i++) { split(order[i], kk, " "); m=med(ms[order[i]]); r=lo"-"hi; rm=med(rss[order[i]]); c=med(cpu[order[i]])
                printf "%-14s %-6s %10.0f %16s %8.0f %8.0f\n", kk[1], kk[2], m, r, c, rm } }' "$TSV"
    echo
    echo "## Warm-up curve: requests/s per ${SLICE}-second slice after the first answer"
    awk -F'\t' '$1=="curve" { k=$2" "$3" "$4; v[k]=v[k] sprintf("%7d", $6); if (!(k in seen)) { seen[k]=1; order[n++]=k } }
        END { for (i=0;i<n;i++) printf "%-26s%s\n", order[i], v[order[i]] }' "$TSV"
    echo
    echo "## Summary per target/protocol/round: first 10 s req/s (and x haproxy), slice reaching 90% of steady"
    echo "## (steady = median of the last 3 slices), steady CPU us/req (mean of the last 3), max RSS under load"
    awk -F'\t' -v slice="$SLICE" '$1=="curve" { k=$2" "$3" "$4; if (!(k in seen)) { seen[k]=1; order[n++]=k; pr[k]=$3; rd[k]=$4; tg[k]=$2 }
            c[k]++; rps[k, c[k]]=$6; us[k, c[k]]=$7; if ($8+0 > rss[k]) rss[k]=$8 }
        END {
            printf "%-14s %-4s %2s %10s %9s %10s %9s %10s %8s\n", "target", "prot", "r", "first10s", "x_hap", "steady", "t90_s", "us/req", "maxRSS"
            for (i=0;i<n;i++) { k=order[i]; m=c[k]; s=0; w=0
                for (j=1;j<=m && (j-1)*slice < 10;j++) { s+=rps[k,j]*slice; w+=slice } f10[k]=(w ? s/w : 0)
                a=rps[k,m]; b=rps[k,m-1]; d=rps[k,m-2]
                st=(a<b ? (b<d ? b : (a<d ? d : a)) : (a<d ? a : (b<d ? d : b)))
                t90="-"; for (j=1;j<=m;j++) if (rps[k,j] >= 0.9*st) { t90=j*slice; break }
                u=(us[k,m]+us[k,m-1]+us[k,m-2])/3
                steady[k]=st; T90[k]=t90; U[k]=u }
            for (i=0;i<n;i++) { k=order[i]; h="haproxy " pr[k] " " rd[k]
                x=(h in f10 && f10[h] > 0 ? sprintf("%.2f", f10[k]/f10[h]) : "-")
                printf "%-14s %-4s %2s %10.0f %9s %10.0f %9s %10.1f %8d\n", tg[k], pr[k], rd[k], f10[k], x, steady[k], T90[k], U[k], rss[k] } }' "$TSV"
} | tee -a "$RES/table.txt"
log "results in $RES"
