#!/bin/bash
# The guest side of run-benchmark.sh:  benchmark-job.sh CLASSPATH SAMPLES MIN_WARMUP BLOCKS [CASES]
# qperf rc_lat once, perftest's ib_send_lat before and after (the reference with percentiles), then RdmaLatencyMain,
# pausing it after each block of samples to run ibv_rc_pingpong and ib_send_lat for a block of the same size and
# count while xio is quiet: each xio block has reference blocks measured next to it.
set -u
cp="$1"; samples="$2"; warmup="$3"; blocks="$4"; cases="${5:-manual-listener,manual-future,threaded-listener}"
ip=$XIO_RDMA_ADDRESS
# Both JVMs: C2 only. Under multi-threaded TCG we saw C1 code crash (SIGILL/SIGSEGV near method entries) when
# it was patched while another vCPU ran it; C2 code is not patched that way.
jvm=(-Xmx1g -XX:-TieredCompilation --add-exports java.base/sun.nio.ch=ALL-UNNAMED)

qperf > /dev/null 2>&1 & qperf_server=$!
sleep 1
for size in 64 4096; do
    # qperf prints one-way latency (half a round trip), a mean
    us=$(qperf -cm1 -m $size $ip rc_lat | awk '/latency/ { v=$3; if ($4=="ms") v*=1000; if ($4=="ns") v/=1000; print v }')
    echo "qperf-rc_lat $size one-way $us"
done
kill $qperf_server

send_lat() { # size iterations: perftest's ib_send_lat, no inline data (as xio and ibv_rc_pingpong); it prints
    # one-way figures (half round trips): median, mean, 99th percentile
    ib_send_lat -d rxe0 -x 1 -I 0 -s "$1" -n "$2" > /tmp/sl-server.log 2>&1 &
    sleep 1
    ib_send_lat -d rxe0 -x 1 -I 0 -s "$1" -n "$2" $ip | awk -v s="$1" '$1 == s && NF >= 8 {
        printf "ib_send_lat %s p50 %.2f p99 %.2f mean %.2f\n", s, 2 * $5, 2 * $8, 2 * $6 }'
    wait
}

pingpong() { # size iterations: mean round trip in us (ibv_rc_pingpong prints total time / iterations)
    ibv_rc_pingpong -d rxe0 -g 1 -s "$1" -n "$2" > /tmp/pp-server.log 2>&1 &
    sleep 1
    ibv_rc_pingpong -d rxe0 -g 1 -s "$1" -n "$2" $ip | awk '/usec\/iter/ { print $(NF-1) }'
    wait
}

for size in 64 4096; do send_lat $size "$samples"; done

# One client JVM (and server) per case, so that no case measures while the JIT still compiles for another.
for case in ${cases//,/ }; do
    coproc XIO { java "${jvm[@]}" -Dxio.bench.blocks=$blocks -Dxio.bench.serverJvm=-XX:-TieredCompilation -cp "$cp" \
        io.xio.rdma.RdmaLatencyMain "$samples" "$warmup" 300 "$case" 2>&1; }
    xio_pid=$XIO_PID
    exec {from_xio}<&"${XIO[0]}" {to_xio}>&"${XIO[1]}"
    while IFS= read -r -u $from_xio line; do
        echo "$line"
        read -r -a word <<< "$line"
        if [ "${word[0]:-} ${word[1]:-}" = "# pause" ]; then
            echo "pingpong-block ${word[2]} ${word[3]} ${word[4]} $(pingpong "${word[3]}" $((samples / blocks)))"
            echo "sendlat-block ${word[2]} ${word[3]} ${word[4]} $(send_lat "${word[3]}" $((samples / blocks)))"
            echo go >&$to_xio
        fi
    done
    wait $xio_pid || exit $?
    exec {from_xio}<&- {to_xio}>&-
done
for size in 64 4096; do send_lat $size "$samples"; done
