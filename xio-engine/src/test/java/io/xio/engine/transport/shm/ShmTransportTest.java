package io.xio.engine.transport.shm;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Portal;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.TestEngines;
import io.xio.engine.transport.ServerProcess;
import io.xio.engine.XioEngine;
import io.xio.engine.XioException;
import io.xio.engine.XioFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.xio.engine.TestEngines.ECHO;
import static io.xio.engine.TestEngines.text;
import static io.xio.engine.TestEngines.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** What only shared memory between processes shows: files, stale leftovers, dead peers, idle CPU. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ShmTransportTest
{
    private static final Path DIR = new ShmTransport().directory();
    private final TestEngines engines = new TestEngines();
    private final String name = "t-" + UUID.randomUUID().toString().substring(0, 13);
    private ServerProcess child;

    @AfterEach
    void close() throws Exception
    {
        if (child != null)
        {
            child.close();
        }
        engines.close();
        assertThat(files()).as("files left in " + DIR).isEmpty();
    }

    private List<Path> files() throws IOException
    {
        try (Stream<Path> all = Files.list(DIR))
        {
            return all.filter(p -> p.getFileName().toString().startsWith("xio-" + name)).toList();
        }
    }

    @Test
    void aSecondPortalOfTheSameNameFailsClearly()
    {
        final XioEngine first = engines.start("first");
        final XioEngine second = engines.start("second");
        first.bind("shm://" + name);
        assertThatThrownBy(() -> second.bind("shm://" + name))
            .isInstanceOf(XioException.class)
            .hasMessageContaining("already bound by a live process");
    }

    @Test
    void stale_files_of_a_dead_process_are_cleaned_up_at_bind() throws Exception
    {
        // A socket nobody listens on, as a killed portal leaves it, and a ring file of a process that is gone.
        final Path socket = DIR.resolve("xio-" + name + ".sock");
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX))
        {
            dead.bind(UnixDomainSocketAddress.of(socket));
        }
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor(10, TimeUnit.SECONDS);
        final Path ring = DIR.resolve("xio-" + name + "-" + gone.pid() + "-1.ring");
        Files.write(ring, new byte[4096]);
        assertThat(files()).containsExactlyInAnyOrder(socket, ring);

        final XioEngine server = engines.start("server");
        server.register("echo", ECHO);
        final Portal portal = server.bind("shm://" + name);
        assertThat(files()).containsExactly(socket);
        final XioEngine client = engines.start("client");
        try (Session session = client.connect(portal.uri().withResource("echo").toString());
             Message reply = session.request(Outbound.of(utf8("after cleanup"))).get(5, TimeUnit.SECONDS))
        {
            assertThat(text(reply.header())).isEqualTo("after cleanup");
            assertThat(files()).as("ring files are deleted once mapped").containsExactly(socket);
        }
    }

    @Test
    void anIdleConnectionUsesNoCpu() throws Exception
    {
        final XioEngine server = engines.start(engines.builder("idle-server").busyPoll(Duration.ofNanos(50_000)));
        final XioEngine client = engines.start(engines.builder("idle-client").busyPoll(Duration.ofNanos(50_000)));
        server.register("echo", ECHO);
        final Portal portal = server.bind("shm://" + name);
        try (Session session = client.connect(portal.uri().withResource("echo").toString()))
        {
            for (int i = 0; i < 1_000; i++)
            {
                session.request(Outbound.of(utf8("warm"))).get(5, TimeUnit.SECONDS).close();
            }
            final long before = contextCpuNanos();
            final long start = System.nanoTime();
            await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> true);
            final long cpu = contextCpuNanos() - before;
            final long wall = System.nanoTime() - start;
            // four context threads, parked in select; keepalives every 200 ms are the only work
            assertThat((double)cpu / wall).as("CPU share of the idle contexts").isLessThan(0.02);
        }
    }

    private static long contextCpuNanos()
    {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (final Thread thread : Thread.getAllStackTraces().keySet())
        {
            if (thread.getName().startsWith("idle-"))
            {
                total += Math.max(0, threads.getThreadCpuTime(thread.getId()));
            }
        }
        return total;
    }

    @Test
    void twoProcessesTalkAndAKilledServerFailsEveryCallerWithoutLeavingFiles() throws Exception
    {
        child = ServerProcess.start("shm://" + name);
        assertThat(child.uri()).isEqualTo("shm://" + name);
        final XioEngine client = engines.start(engines.builder("client").reconnectTimeout(Duration.ofSeconds(2)));
        final String base = "shm://" + name + "/";
        try (Session echo = client.connect(base + "echo");
             Session hold = client.connect(base + "hold", SessionOptions.DEFAULT.withTimeout(Duration.ofSeconds(30))))
        {
            for (int i = 0; i < 100; i++)
            {
                try (Message reply = echo.request(Outbound.of(utf8("across " + i))).get(5, TimeUnit.SECONDS))
                {
                    assertThat(text(reply.header())).isEqualTo("across " + i);
                }
            }
            final List<XioFuture<Message>> inFlight = new ArrayList<>();
            for (int i = 0; i < 1_000; i++)
            {
                inFlight.add(hold.request(Outbound.of(utf8("held " + i)), CallOptions.DEFAULT.withWaitWhenFull(true)));
            }
            assertThat(child.kill()).isTrue(); // kill -9
            for (final XioFuture<Message> future : inFlight)
            {
                assertThatThrownBy(() -> future.get(15, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(ConnectionException.class);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> !hold.isOpen() && !echo.isOpen());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> files().isEmpty());
    }
}
