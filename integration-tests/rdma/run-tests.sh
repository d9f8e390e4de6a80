#!/usr/bin/env bash
# Runs xio's rdma-tagged tests (the transport conformance suite and the RDMA-specific suite on rdma://) on
# real kernel verbs: Soft-RoCE inside a QEMU guest (run-guest.sh). The build happens here on the host;
# the guest only runs `java` with the JUnit console launcher on the prepared class path.
#
#   integration-tests/rdma/run-tests.sh [--kvm | --mttcg] [--timeout SECONDS] [JUnit console launcher selectors...]
#
# Default selection: every test tagged rdma in io.xio.rdma (the xio-rdma module). With an RDMA NIC, run the same tests on the
# host instead, without the guest:  XIO_RDMA_ADDRESS=<ip of the RDMA interface> integration-tests/rdma/run-tests.sh --host
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

guest=(integration-tests/rdma/run-guest.sh)
on_host=false
# Under multi-threaded TCG, C1 code crashed (SIGILL/SIGSEGV near method entries) when patched while another
# vCPU ran it: there, every JVM (the tests start some) compiles with C2 only.
jit=()
while [ $# -gt 0 ]; do
    case "$1" in
        --kvm) guest+=(--kvm); shift ;;
        --mttcg) guest+=(--mttcg); jit=(env JAVA_TOOL_OPTIONS=-XX:-TieredCompilation); shift ;;
        --timeout) guest+=(--timeout "$2"); shift 2 ;;
        --host) on_host=true; shift ;;
        *) break ;;
    esac
done
selection=("$@")
[ ${#selection[@]} -gt 0 ] || selection=(--select-package io.xio.rdma --include-tag rdma)

out=$(integration-tests/rdma/build-classpath.sh)
junit=org.junit.platform:junit-platform-console-standalone:6.0.3
./mvnw -B -q -pl xio-rdma dependency:copy -Dartifact="$junit" -DoutputDirectory="$PWD/$out" -Dmdep.stripVersion=true
# The console launcher brings its own JUnit; the rest of the test class path comes from the build.
cp="$(tr ':' '\n' < "$out/classpath.txt" | grep -v '/org/junit/' | paste -sd: -)"
# One class path for launcher and tests, so that java.class.path is complete for the JVMs the tests spawn.
# Emulated verbs are slow: the test engines' connect, keepalive and reconnect timeouts are stretched 5x there.
scale=5
$on_host && scale=1
run=("${jit[@]}" java -Xmx1g --add-exports java.base/sun.nio.ch=ALL-UNNAMED -XX:ErrorFile=/tmp/xio-hs_err_%p.log
    -Dxio.test.timeScale=$scale
    -cp "$PWD/$out/junit-platform-console-standalone.jar:$cp" org.junit.platform.console.ConsoleLauncher
    execute --disable-banner --disable-ansi-colors --details=tree "${selection[@]}")
if $on_host; then
    "${run[@]}"
else
    # A JVM crash report would stay inside the guest: print its head on the console.
    "${guest[@]}" -- bash -c '"$@"; code=$?; for f in /tmp/xio-hs_err_*.log; do [ -f "$f" ] && head -60 "$f"; done; exit $code' \
        rdma-tests "${run[@]}"
fi
