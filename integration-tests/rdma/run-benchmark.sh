#!/usr/bin/env bash
# xio rdma request/response latency next to ibv_rc_pingpong and qperf rc_lat, in one Soft-RoCE guest run.
# Emulation (TCG) makes absolute numbers meaningless: the ratios are the figure.
#
#   integration-tests/rdma/run-benchmark.sh [--kvm] [samples] [minimum warm-up calls] [blocks] [cases]
#
# Set up like ibv_rc_pingpong: server and client in processes of their own, one request outstanding, one busy
# thread per side (see RdmaLatencyMain for the cases). xio warms up until its latency stops improving (the JIT
# compiles at emulation speed), then measures in blocks; after each block ibv_rc_pingpong runs a block of the
# same size and count while xio is quiet (benchmark-job.sh), so each xio block has a reference measured next
# to it. ibv_rc_pingpong and qperf print means: the ratios compare means with means, plus xio's p50 to the
# reference mean, plus the median of the per-block mean ratios (robust to the host's load drifting).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# One host thread per vCPU: client and server each need a CPU of their own to poll.
guest=(integration-tests/rdma/run-guest.sh --timeout 2400 --mttcg)
if [ "${1:-}" = "--kvm" ]; then guest=(integration-tests/rdma/run-guest.sh --timeout 2400 --kvm); shift; fi
samples="${1:-20000}"
warmup="${2:-40000}"
blocks="${3:-10}"
cases="${4:-manual-listener,manual-future,threaded-listener}"

out=$(integration-tests/rdma/build-classpath.sh)
cp="$(cat "$out/classpath.txt")"

"${guest[@]}" -- bash integration-tests/rdma/benchmark-job.sh "$cp" "$samples" "$warmup" "$blocks" "$cases" |
    tee "$out/benchmark.log"
echo
echo "round trip, microseconds (Soft-RoCE under emulation: compare ratios only); pingpong = ibv_rc_pingpong (mean of"
echo "blocks run between xio's), sl = perftest ib_send_lat -I 0 (before and after, averaged; 2 x its one-way figures);"
echo "blk = the median over blocks of xio's block figure / the reference block run right after it (mean: pingpong;"
echo "p50, p99: ib_send_lat), the ratios least hurt by the host's load drifting"
awk '
    $1 == "qperf-rc_lat" { q[$2] = 2 * $4 }
    $1 == "ib_send_lat" { sl50[$2] += $4; sl99[$2] += $6; sln[$2]++ }
    $1 == "#" && $2 == "block" { xb[$3 " " $4, $5] = $7; x50b[$3 " " $4, $5] = $9; x99b[$3 " " $4, $5] = $11 }
    $1 == "sendlat-block" { s50b[$2 " " $3, $4] = $8; s99b[$2 " " $3, $4] = $10 }
    $1 == "pingpong-block" { pb[$2 " " $3, $4] = $5; n[$2 " " $3]++ }
    $1 ~ /^(manual|threaded)-/ && $3 == "p50" { key = $1 " " $2; keys[++count] = key; size[key] = $2
        x50[key] = $4; x99[key] = $6; xmean[key] = $8 }
    function med(a, m,   i, j, t) {
        for (i = 0; i < m; i++) for (j = i + 1; j < m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return m == 0 ? 0 : (m % 2 ? a[int(m / 2)] : (a[m / 2 - 1] + a[m / 2]) / 2)
    }
    END {
        printf "%-22s %7s %7s %7s %9s %9s %9s %9s %8s %8s %8s %8s %9s %9s\n", "case (bytes)", "p50", "p99", "mean",
            "pingpong", "qperf", "sl p50", "sl p99", "mean/pp", "p50/sl", "p99/sl", "blk mean", "blk p50", "blk p99"
        for (c = 1; c <= count; c++) {
            k = key = keys[c]; s = size[k]; sum = 0; m = 0
            for (b = 0; b < n[k]; b++) { sum += pb[k, b]; if (pb[k, b] > 0) r[m++] = xb[k, b] / pb[k, b] }
            pp = n[k] > 0 ? sum / n[k] : 0
            median = med(r, m)
            m50 = 0; m99 = 0
            for (b = 0; b < n[k]; b++) if (s50b[k, b] > 0) { r50[m50++] = x50b[k, b] / s50b[k, b]; r99[m99++] = x99b[k, b] / s99b[k, b] }
            median50 = med(r50, m50); median99 = med(r99, m99)
            s50 = sln[s] > 0 ? sl50[s] / sln[s] : 0; s99 = sln[s] > 0 ? sl99[s] / sln[s] : 0
            printf "%-22s %7.1f %7.1f %7.1f %9.1f %9.1f %9.1f %9.1f %8.2f %8.2f %8.2f %8.2f %9.2f %9.2f\n", k, x50[k],
                x99[k], xmean[k], pp, q[s], s50, s99, (pp > 0 ? xmean[k] / pp : 0), (s50 > 0 ? x50[k] / s50 : 0),
                (s99 > 0 ? x99[k] / s99 : 0), median, median50, median99
        }
    }' "$out/benchmark.log"
