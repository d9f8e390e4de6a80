#!/bin/sh
# Builds libdisni.so (xio's implementation of DiSNI's JNI interface) into <classes>/META-INF/native/linux-<arch>/
# when gcc and the rdma-core headers are there; otherwise says so and leaves the jar without it (the rdma
# transport then reports what to install). Called by Maven: build.sh <java.home> <classes dir>.
set -eu
java_home=$1
classes=$2
here=$(dirname "$0")
missing=""
command -v gcc >/dev/null 2>&1 || missing="$missing gcc"
[ -f /usr/include/infiniband/verbs.h ] || missing="$missing libibverbs-dev"
[ -f /usr/include/rdma/rdma_cma.h ] || missing="$missing librdmacm-dev"
[ -f "$java_home/include/jni.h" ] || missing="$missing JDK-headers($java_home/include/jni.h)"
if [ -n "$missing" ]; then
    echo "[xio] RDMA native part skipped (libdisni.so not built): missing$missing"
    echo "[xio]   on Debian/Ubuntu: apt-get install gcc libibverbs-dev librdmacm-dev"
    exit 0
fi
out="$classes/META-INF/native/linux-$(uname -m)"
mkdir -p "$out"
if [ "$out/libdisni.so" -nt "$here/disni.c" ]; then
    exit 0
fi
gcc -O2 -Wall -Wextra -Wno-unused-parameter -Werror -fPIC -shared \
    -I"$java_home/include" -I"$java_home/include/linux" \
    -o "$out/libdisni.so" "$here/disni.c" -lrdmacm -libverbs
echo "[xio] built $out/libdisni.so"
