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
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
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
        final Path home = Files.createDirectory(DIR.resolve("xio-" + name));
        final Path socket = home.resolve("portal.sock");
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX))
        {
            dead.bind(UnixDomainSocketAddress.of(socket));
        }
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor(10, TimeUnit.SECONDS);
        final Path ring = DIR.resolve("xio-" + name + "-" + gone.pid() + "-1.ring");
        Files.write(ring, new byte[4096]);
        assertThat(files()).containsExactlyInAnyOrder(home, ring);

        final XioEngine server = engines.start("server");
        server.register("echo", ECHO);
        final Portal portal = server.bind("shm://" + name);
        assertThat(files()).containsExactly(home);
        assertThat(Files.exists(socket)).as("bound again").isTrue();
        final XioEngine client = engines.start("client");
        try (Session session = client.connect(portal.uri().withResource("echo").toString());
             Message reply = session.request(Outbound.of(utf8("after cleanup"))).get(5, TimeUnit.SECONDS))
        {
            assertThat(text(reply.header())).isEqualTo("after cleanup");
            assertThat(files()).as("ring files are deleted once mapped").containsExactly(home);
        }
    }

    @Test
    void thePortalsDirectoryAndSocketAreOwnerOnlyOrOpenToItsGroupOnly() throws Exception
    {
        final Path home = DIR.resolve("xio-" + name);
        final XioEngine server = engines.start("server");
        final Portal portal = server.bind("shm://" + name);
        assertThat(Files.getPosixFilePermissions(home, LinkOption.NOFOLLOW_LINKS))
            .isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.getPosixFilePermissions(home.resolve("portal.sock"), LinkOption.NOFOLLOW_LINKS))
            .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        portal.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> !Files.exists(home, LinkOption.NOFOLLOW_LINKS));

        final java.nio.file.attribute.GroupPrincipal mine = ownGroup();
        final XioEngine grouped = engines.start(engines.builder("grouped")
            .transport(new ShmTransport(DIR, 64 << 10, mine.getName())));
        grouped.bind("shm://" + name);
        final PosixFileAttributes directory = Files.readAttributes(home, PosixFileAttributes.class,
            LinkOption.NOFOLLOW_LINKS);
        assertThat(directory.permissions()).isEqualTo(PosixFilePermissions.fromString("rwxr-x---"));
        assertThat(directory.group()).isEqualTo(mine);
        final PosixFileAttributes socket = Files.readAttributes(home.resolve("portal.sock"), PosixFileAttributes.class,
            LinkOption.NOFOLLOW_LINKS);
        assertThat(socket.permissions()).isEqualTo(PosixFilePermissions.fromString("rw-rw----"));
        assertThat(socket.group()).isEqualTo(mine);
    }

    @Test
    void aRingFileIsOwnerOnlyWhileItExists() throws Exception
    {
        // A stand-in portal that takes the client's hello and looks at the ring it names before anything maps it.
        final Path home = Files.createDirectory(DIR.resolve("xio-" + name),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        try (ServerSocketChannel portal = ServerSocketChannel.open(StandardProtocolFamily.UNIX))
        {
            portal.bind(UnixDomainSocketAddress.of(home.resolve("portal.sock")));
            final XioEngine client = engines.start("client");
            final java.util.concurrent.CompletableFuture<Session> opening = client.openSession("shm://" + name + "/x",
                SessionOptions.DEFAULT);
            try (java.nio.channels.SocketChannel accepted = portal.accept())
            {
                final java.nio.ByteBuffer hello = java.nio.ByteBuffer.allocate(514);
                while (hello.position() < 2 || hello.position() < 2 + hello.getShort(0))
                {
                    accepted.read(hello);
                }
                final Path ring = DIR.resolve(new String(hello.array(), 2, hello.getShort(0),
                    java.nio.charset.StandardCharsets.UTF_8));
                assertThat(Files.getPosixFilePermissions(ring, LinkOption.NOFOLLOW_LINKS))
                    .isEqualTo(PosixFilePermissions.fromString("rw-------"));
            }
            assertThatThrownBy(opening::join).as("refused: the stand-in closed without answering")
                .hasCauseInstanceOf(ConnectionException.class);
        }
        finally
        {
            Files.deleteIfExists(home.resolve("portal.sock"));
            Files.deleteIfExists(home);
        }
    }

    @Test
    void anAcceptorSeesThePeersLocalUserAndMayMakeItThePrincipal() throws Exception
    {
        final XioEngine server = engines.start("server");
        server.register("whoami", request ->
        {
            try (Message message = request.message())
            {
                request.respond(Outbound.of(utf8(request.session().principal().getName())));
            }
        });
        final Portal portal = server.bind("shm://" + name, request -> request.peer().localUser() != null ?
            io.xio.engine.SetupDecision.accept(request.peer().localUser()) :
            io.xio.engine.SetupDecision.unauthenticated("no local user"));
        final XioEngine client = engines.start("client");
        try (Session session = client.connect(portal.uri().withResource("whoami").toString());
             Message reply = session.request(Outbound.of(utf8("who"))).get(5, TimeUnit.SECONDS))
        {
            assertThat(text(reply.header())).isEqualTo(ownUser().getName());
        }
    }

    /**
     * Another user cannot come in even where the file system would let it (the test opens the directory and socket
     * to everyone): the portal reads the peer's uid from the socket and closes it at once; a process whose
     * effective group is the portal's group is let in. Needs root (to run the peer as uid 65534) and setpriv.
     */
    @Test
    void aPeerOfAnotherUserIsClosedAtOnceAndOneOfTheGroupIsNot() throws Exception
    {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(ownUser().getName()),
            "runs as root only: it starts a peer as uid 65534");
        final Path setpriv = Stream.of("/usr/bin/setpriv", "/bin/setpriv").map(Path::of).filter(Files::isExecutable)
            .findFirst().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(setpriv != null, "needs setpriv (util-linux)");
        final Path probeDir = Files.createTempDirectory("xio-probe");
        try
        {
            Files.setPosixFilePermissions(probeDir, PosixFilePermissions.fromString("rwxr-xr-x"));
            final Path probe = probeDir.resolve("Probe.java");
            Files.writeString(probe, PROBE);
            Files.setPosixFilePermissions(probe, PosixFilePermissions.fromString("rw-r--r--"));
            final Path home = DIR.resolve("xio-" + name);

            final XioEngine server = engines.start("server");
            final Portal portal = server.bind("shm://" + name);
            Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(home.resolve("portal.sock"), PosixFilePermissions.fromString("rw-rw-rw-"));
            assertThat(runAsNobody(setpriv, probe, home.resolve("portal.sock"))).isEqualTo("closed");
            assertThat(server.refusals().get(io.xio.engine.PeerRefusal.PEER_CREDENTIALS)).isEqualTo(1);
            portal.close();
            await().atMost(Duration.ofSeconds(5)).until(() -> !Files.exists(home, LinkOption.NOFOLLOW_LINKS));

            final XioEngine grouped = engines.start(engines.builder("grouped")
                .transport(new ShmTransport(DIR, 64 << 10, "nogroup")));
            grouped.bind("shm://" + name);
            assertThat(runAsNobody(setpriv, probe, home.resolve("portal.sock")))
                .as("let in by the group's permissions and the uid check, waiting for its hello").isEqualTo("open");
            assertThat(grouped.refusals().get(io.xio.engine.PeerRefusal.PEER_CREDENTIALS)).isZero();
        }
        finally
        {
            Files.deleteIfExists(probeDir.resolve("Probe.java"));
            Files.deleteIfExists(probeDir);
        }
    }

    /** Runs the probe as nobody:nogroup with the test's JDK; what it printed. */
    private static String runAsNobody(final Path setpriv, final Path probe, final Path socket) throws Exception
    {
        final String launcher = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process process = new ProcessBuilder(setpriv.toString(), "--reuid=65534", "--regid=65534",
            "--clear-groups", launcher, probe.toString(), socket.toString()).redirectErrorStream(true).start();
        try
        {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the probe ends").isTrue();
            final String out = new String(process.getInputStream().readAllBytes(),
                java.nio.charset.StandardCharsets.UTF_8).trim();
            return out.substring(out.lastIndexOf('\n') + 1);
        }
        finally
        {
            process.destroyForcibly();
        }
    }

    /** Connects to the socket and says whether the portal closed it within 3 s ("closed") or not ("open"). */
    private static final String PROBE = String.join("\n",
        "import java.net.UnixDomainSocketAddress;",
        "import java.nio.ByteBuffer;",
        "import java.nio.channels.SelectionKey;",
        "import java.nio.channels.Selector;",
        "import java.nio.channels.SocketChannel;",
        "public class Probe {",
        "    public static void main(String[] args) throws Exception {",
        "        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(args[0]));",
        "             Selector selector = Selector.open()) {",
        "            channel.configureBlocking(false);",
        "            channel.register(selector, SelectionKey.OP_READ);",
        "            long end = System.nanoTime() + 3_000_000_000L;",
        "            while (System.nanoTime() < end) {",
        "                if (selector.select(Math.max(1, (end - System.nanoTime()) / 1_000_000)) > 0) {",
        "                    selector.selectedKeys().clear();",
        "                    if (channel.read(ByteBuffer.allocate(16)) < 0) {",
        "                        System.out.println(\"closed\");",
        "                        return;",
        "                    }",
        "                }",
        "            }",
        "            System.out.println(\"open\");",
        "        } catch (java.io.IOException e) {",
        "            System.out.println(\"failed: \" + e);",
        "        }",
        "    }",
        "}",
        "");

    private static java.nio.file.attribute.UserPrincipal ownUser() throws IOException
    {
        final Path probe = Files.createTempFile("xio-owner", ".tmp");
        try
        {
            return Files.getOwner(probe);
        }
        finally
        {
            Files.delete(probe);
        }
    }

    private static java.nio.file.attribute.GroupPrincipal ownGroup() throws IOException
    {
        final Path probe = Files.createTempFile("xio-group", ".tmp");
        try
        {
            return Files.readAttributes(probe, PosixFileAttributes.class).group();
        }
        finally
        {
            Files.delete(probe);
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
