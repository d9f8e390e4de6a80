#!/bin/sh
# Builds libdisni.so (xio's implementation of DiSNI's JNI interface) into <dir>/META-INF/native/linux-<arch>/,
# which -Prdma-native packages as the xio-rdma:linux-<arch> jar. Fails, naming what to install, when gcc or
# the rdma-core headers are missing: a build asked for the native part never ships without it.
# Called by Maven: build.sh <java.home> <output dir>.
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
    echo "[xio] cannot build libdisni.so (-Prdma-native): missing$missing" >&2
    echo "[xio]   on Debian/Ubuntu: apt-get install gcc libibverbs-dev librdmacm-dev" >&2
    exit 1
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
