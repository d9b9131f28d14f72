#!/bin/bash
# tls-sign.sh -- CPU per full TLS handshake of one Sluice process (issue 22's d-tls-full without the origin): Sluice on
# CPU 1 with CFG (a frontend answering with http-request return on 127.0.0.1:18443, RSA-2048 certificate), two
# `openssl s_time -new` clients on CPU 0, WARM seconds of warm-up [4], then 10 s measured; prints the proxy's CPU time
# (utime+stime of the JVM, JIT threads included) per handshake.
#   CFG=<cfg> WARM=20 ./tls-sign.sh openssl                            # RSA signatures by the system's OpenSSL 3
#   CFG=<cfg> WARM=20 ./tls-sign.sh boring -Dsluice.tls.rsa=boringssl  # by BoringSSL
# usage: tls-sign.sh <label> <java opts>; the process is stopped by its PID at the end.
label=$1; shift
cd "$(dirname "$0")/../.." || exit 1
: "${CFG:?set CFG to a configuration with a TLS bind on 127.0.0.1:18443}"
(SLUICE_AOT=off SLUICE_JAVA_OPTS="$*" exec taskset -c 1 ./sluice -f "$CFG" > ${OUT:-/tmp}/tls-sign.log.$label 2>&1 & echo $! > ${OUT:-/tmp}/tls-sign.pid.$label)
pid=$(cat ${OUT:-/tmp}/tls-sign.pid.$label)
for i in $(seq 50); do curl -sk -o /dev/null https://127.0.0.1:18443/ && break; sleep 0.2; done
for c in 1 2; do taskset -c 0 openssl s_time -connect 127.0.0.1:18443 -new -time ${WARM:-4} >/dev/null 2>&1 & done; wait
t0=$(awk '{print $14+$15}' /proc/$pid/stat)
for c in 1 2; do taskset -c 0 openssl s_time -connect 127.0.0.1:18443 -new -time 10 > ${OUT:-/tmp}/tls-sign.st.$label.$c 2>&1 & done; wait
t1=$(awk '{print $14+$15}' /proc/$pid/stat)
n=$(grep -h "connections in [0-9.]*s" ${OUT:-/tmp}/tls-sign.st.$label.* | grep -v real | awk '{s+=$1} END {print s}')
kill $pid; wait $pid 2>/dev/null
echo "$label handshakes=$n cpu_ticks=$((t1-t0)) us/handshake=$(echo "($t1-$t0)*10000/$n" | bc)"
