#!/usr/bin/env bash
# jmh-paired.sh -- one JMH benchmark, several values of one parameter, measured in alternation.
#
# Usage: bench/jmh-paired.sh ROUNDS BENCHMARK PARAM V1,V2[,...] [JMH ARGS...]
#   e.g. bench/jmh-paired.sh 8 StickTableBench layout OWN_LOCK,UNDER_TABLE_LOCK -p peerEvery=32 -t 2
#
# The build machine is small and shared: a long run of one value then a long run of the next compares
# two different machines. Here every round runs each value once, short (one fork, -wi 2 -i 3 -w 1s -r 1s
# unless JMH ARGS say otherwise), in an order that alternates from round to round, and the figure kept
# is, per value, the median over rounds of its score divided by V1's score in the same round (with the
# lowest and highest ratio). Needs bench/target/benchmarks.jar (mvn -pl bench -am package) and python3.
# Results and the raw JMH output go to ${OUT:-/tmp/jmh-paired-<timestamp>}.
set -u -o pipefail
(($# >= 4)) || { sed -n 2,12p "$0"; exit 2; }
ROUNDS=$1 BENCH=$2 PARAM=$3 VALUES=$4
shift 4
HERE=$(cd "$(dirname "$0")" && pwd)
JAR=$HERE/target/benchmarks.jar
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
[[ -f $JAR ]] || { echo "missing $JAR" >&2; exit 1; }
OUT=${OUT:-/tmp/jmh-paired-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
IFS=, read -r -a VALS <<<"$VALUES"
for ((r = 1; r <= ROUNDS; r++)); do
    order=("${VALS[@]}")
    if ((r % 2 == 0)); then
        order=(); for ((i = ${#VALS[@]} - 1; i >= 0; i--)); do order+=("${VALS[i]}"); done
    fi
    for v in "${order[@]}"; do
        "$JAVA" -jar "$JAR" "$BENCH" -p "$PARAM=$v" -f 1 -wi 2 -i 3 -w 1s -r 1s "$@" \
            -rf json -rff "$OUT/r$r-$v.json" > "$OUT/r$r-$v.txt" 2>&1 || { echo "JMH failed, see $OUT/r$r-$v.txt" >&2; exit 1; }
    done
    echo "round $r/$ROUNDS done ($(uptime | sed 's/.*load/load/'))" >&2
done
python3 - "$OUT" "$ROUNDS" "$VALUES" <<'PY'
import json, statistics, sys
out, rounds, values = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
def score(r, v):
    res = {}
    for b in json.load(open(f"{out}/r{r}-{v}.json")):
        other = {k: x for k, x in b.get("params", {}).items()}
        key = b["benchmark"].rsplit(".", 1)[1] + "".join(f" {k}={x}" for k, x in sorted(other.items()) if x != v)
        res[key] = (b["primaryMetric"]["score"], b["primaryMetric"]["scoreUnit"])
    return res
table = {}
for r in range(1, rounds + 1):
    base = score(r, values[0])
    for v in values:
        for key, (s, unit) in score(r, v).items():
            table.setdefault(key, {}).setdefault(v, []).append((s, s / base[key][0], unit))
for key, per in table.items():
    print(key)
    for v in values:
        rows = per[v]
        ratios = sorted(x[1] for x in rows)
        print(f"  {v:>20}: median score {statistics.median(x[0] for x in rows):10.3f} {rows[0][2]:<8}"
              f" ratio to {values[0]}: {statistics.median(ratios):.2f} [{ratios[0]:.2f}-{ratios[-1]:.2f}] over {len(rows)} rounds")
PY
