#!/usr/bin/env bash
# startup-ab.sh -- paired start-up measure of two variants of the daemon (issue 17): N interleaved starts of each,
# java run directly with the launcher's flags (SLUICE_PRINT_FLAGS=1 ./sluice), pinned to CPU 1 (the poller on CPU 0),
# the launch stamped by the subshell right before the exec; prints the median (and range) of the milliseconds to the
# first 200 answer and of the CPU the process spent by then.
#
# Usage:  ./startup-ab.sh N "A's extra JVM flags" "B's extra JVM flags"
# Environment: CFG (a configuration; default: examples/quickstart.cfg with 8080-8082 moved to 27560-27562) and PORT
#   (its first HTTP/1.1 port), JAR_A / JAR_B (default proxy/target/sluice.jar; another jar needs its own cache:
#   SLUICE_JAR=<jar> ./sluice aot, then -XX:AOTCache=<its .aot> -Djava.library.path=<its .native> in its flags).
# Extra flags come after the launcher's, so they win (a second -XX:AOTCache replaces the first).
set -u -o pipefail

BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
N=${1:?usage: startup-ab.sh N A-flags B-flags}
A=${2:-}
B=${3:-}
if [[ -z ${CFG:-} ]]; then
    CFG=$WORK/quickstart.cfg
    sed -e 's/8080/27560/g; s/8081/27561/g; s/8082/27562/g' "$ROOT/examples/quickstart.cfg" > "$CFG"
    PORT=27560
fi
PORT=${PORT:?set PORT to the first HTTP/1.1 port of CFG}
mapfile -t FLAGS < <(SLUICE_PRINT_FLAGS=1 "$ROOT/sluice" -f "$CFG")
# the JDK the launcher would pick when JAVA_HOME names one; else the first JDK 25 under /usr/lib/jvm
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/java}
if [[ -z $JAVA ]] || ! grep -qs '^JAVA_VERSION="2[5-9]' "${JAVA%/bin/java}/release"; then
    JAVA=$(ls -d /usr/lib/jvm/*25*/bin/java 2> /dev/null | head -n 1)
fi
[[ -x $JAVA ]] || { echo "startup-ab.sh: no JDK 25 (set JAVA_HOME)" >&2; exit 1; }

one() {                # EXTRA-FLAGS JAR -> prints "ms cpu_ms"
    local extra=$1 jar=$2 stamp=$WORK/t0 out=$WORK/out pid poller st
    rm -f "$stamp" "$out"
    taskset -c 0 python3 "$BENCH/first-answer.py" "$stamp" "$PORT" 30 > "$out" &
    poller=$!
    sleep 0.15
    # shellcheck disable=SC2086
    ( printf '%s000\n' "${EPOCHREALTIME/./}" > "$stamp"; exec taskset -c 1 "$JAVA" "${FLAGS[@]}" $extra -jar "$jar" -f "$CFG" ) \
        > "$WORK/log" 2>&1 &
    pid=$!
    wait "$poller"
    read -ra st < "/proc/$pid/stat"
    echo "$(cat "$out") $(( (st[13] + st[14]) * 1000 / $(getconf CLK_TCK) ))"
    kill "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
}

med() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { printf "%s [%s-%s]", a[int((NR + 1) / 2)], a[1], a[NR] }'; }

wa=() ca=() wb=() cb=()
for ((i = 0; i < N; i++)); do
    read -r w c < <(one "$A" "${JAR_A:-$ROOT/proxy/target/sluice.jar}"); wa+=("$w"); ca+=("$c")
    read -r w c < <(one "$B" "${JAR_B:-$ROOT/proxy/target/sluice.jar}"); wb+=("$w"); cb+=("$c")
done
echo "A ($A): first answer $(med "${wa[@]}") ms, CPU $(med "${ca[@]}") ms"
echo "B ($B): first answer $(med "${wb[@]}") ms, CPU $(med "${cb[@]}") ms"
