#!/usr/bin/env bash
# xio rdma request/response latency next to qperf rc_lat and ibv_rc_pingpong, in one Soft-RoCE guest run.
# Emulation (TCG) makes absolute numbers meaningless: the ratios are the figure.
#
#   integration-tests/rdma/run-benchmark.sh [--kvm] [samples] [warm-up]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# One host thread per vCPU: client, server and verbs tools each need a CPU of their own to poll.
guest=(integration-tests/rdma/run-guest.sh --timeout 1500 --mttcg)
if [ "${1:-}" = "--kvm" ]; then guest=(integration-tests/rdma/run-guest.sh --timeout 1500 --kvm); shift; fi
samples="${1:-20000}"
warmup="${2:-5000}"

out=xio-engine/target/rdma-tests
mkdir -p "$out"
./mvnw -B -q -pl xio-engine test-compile dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$PWD/$out/classpath.txt"
cp="$PWD/xio-engine/target/test-classes:$PWD/xio-engine/target/classes:$(cat "$out/classpath.txt")"

cat > "$out/benchmark-job.sh" <<JOB
#!/bin/bash
set -u
ip=\$XIO_RDMA_ADDRESS
qperf > /dev/null 2>&1 & qperf_server=\$!
sleep 1
for size in 64 4096; do
    # qperf prints one-way latency (half a round trip)
    us=\$(qperf -cm1 -m \$size \$ip rc_lat | awk '/latency/ { v=\$3; if (\$4=="ms") v*=1000; if (\$4=="ns") v/=1000; print v }')
    echo "qperf-rc_lat \$size one-way \$us"
done
kill \$qperf_server
for size in 64 4096; do
    ibv_rc_pingpong -d rxe0 -g 1 -s \$size -n $samples > /tmp/pp-server.log 2>&1 &
    sleep 1
    us=\$(ibv_rc_pingpong -d rxe0 -g 1 -s \$size -n $samples \$ip | awk '/usec\/iter/ { print \$(NF-1) }')
    wait
    echo "ibv_rc_pingpong \$size round-trip \$us"
done
java -Xmx1g --add-exports java.base/sun.nio.ch=ALL-UNNAMED -cp "$cp" \
    io.xio.engine.transport.rdma.RdmaLatencyMain $samples $warmup
JOB
chmod +x "$out/benchmark-job.sh"
"${guest[@]}" -- bash "$PWD/$out/benchmark-job.sh" | tee "$out/benchmark.log"
echo
echo "round trip, microseconds (Soft-RoCE under emulation: compare ratios only)"
awk '
    $1 == "qperf-rc_lat" { q[$2] = 2 * $4 }
    $1 == "ibv_rc_pingpong" { p[$2] = $4 }
    $1 ~ /^xio-rdma/ { key = $1 " " $2; x50[key] = $4; x99[key] = $6; size[key] = $2 }
    END {
        printf "%-24s %10s %10s %16s %10s %13s %10s\n", "case", "p50", "p99", "ibv_rc_pingpong", "qperf 2x",
            "p50/pingpong", "p50/qperf"
        for (k in x50) {
            s = size[k]
            printf "%-24s %10.1f %10.1f %16.1f %10.1f %13.2f %10.2f\n", k " B", x50[k], x99[k], p[s], q[s],
                (p[s] > 0 ? x50[k] / p[s] : 0), (q[s] > 0 ? x50[k] / q[s] : 0)
        }
    }' "$out/benchmark.log"
