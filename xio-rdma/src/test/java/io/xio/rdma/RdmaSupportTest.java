package io.xio.rdma;

import io.xio.engine.ConnectionException;
import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What the rdma transport says when RDMA cannot work here; runs in the default build, without RDMA. */
class RdmaSupportTest
{
    private final TestEngines engines = new TestEngines();

    @TempDir
    Path dir;

    @AfterEach
    void close()
    {
        engines.close();
    }

    private static final ClassLoader NO_RESOURCES = new URLClassLoader(new URL[0], null);

    @Test
    void namesBothWhenDeviceAndLibraryAreMissing()
    {
        final String reason = RdmaSupport.unavailableReason(dir.resolve("none"), dir.resolve("rdma_cm"), NO_RESOURCES,
            "", true);
        assertThat(reason).contains("no RDMA device and no native library", "rdma_rxe", "libdisni.so",
            "io.xio:xio-rdma with classifier linux-", "-Prdma-native", "libibverbs-dev and librdmacm-dev");
    }

    @Test
    void namesTheLibraryWhenOnlyItIsMissing() throws IOException
    {
        final Path devices = Files.createDirectories(dir.resolve("infiniband/rxe0"));
        final Path cm = Files.createFile(dir.resolve("rdma_cm"));
        final String reason = RdmaSupport.unavailableReason(devices.getParent(), cm, NO_RESOURCES, "/nowhere", true);
        assertThat(reason).startsWith("no native library libdisni.so").doesNotContain("no RDMA device");
    }

    @Test
    void findsTheLibraryOnJavaLibraryPathAndNamesTheMissingDevice() throws IOException
    {
        Files.createFile(dir.resolve("libdisni.so"));
        final String reason = RdmaSupport.unavailableReason(dir.resolve("none"), dir.resolve("rdma_cm"), NO_RESOURCES,
            "/nowhere:" + dir, true);
        assertThat(reason).startsWith("no RDMA device").contains("rdma link add rxe0 type rxe netdev")
            .doesNotContain("libdisni");
    }

    @Test
    void namesTheMissingExportWhenEverythingElseIsThere() throws IOException
    {
        final Path devices = Files.createDirectories(dir.resolve("infiniband/rxe0"));
        final Path cm = Files.createFile(dir.resolve("rdma_cm"));
        Files.createFile(dir.resolve("libdisni.so"));
        assertThat(RdmaSupport.unavailableReason(devices.getParent(), cm, NO_RESOURCES, dir.toString(), false))
            .contains("--add-exports java.base/sun.nio.ch=ALL-UNNAMED");
        assertThat(RdmaSupport.unavailableReason(devices.getParent(), cm, NO_RESOURCES, dir.toString(), true))
            .isNull();
    }

    @Test
    void bindAndConnectFailAtOnceWithTheReasonWhereRdmaIsUnavailable()
    {
        final String reason = RdmaSupport.unavailableReason();
        assumeTrue(reason != null, "this host has RDMA; the rdma-tagged suites cover it");
        final XioEngine engine = engines.start("no-rdma");
        final long start = System.nanoTime();
        assertThatThrownBy(() -> engine.bind("rdma://127.0.0.1:0"))
            .hasStackTraceContaining("cannot bind rdma://127.0.0.1:0").hasStackTraceContaining(reason);
        assertThatThrownBy(() -> engine.connect("rdma://127.0.0.1:7471/kv"))
            .isInstanceOf(ConnectionException.class)
            .hasMessageContaining("rdma://127.0.0.1:7471").hasStackTraceContaining(reason);
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(3));
    }
}
