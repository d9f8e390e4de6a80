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
import io.xio.engine.transport.AddressInUseException;
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
    /** What a test leaves to undo (processes, files outside the names {@link #files} checks), last first. */
    private final List<Cleanup> cleanups = new ArrayList<>();

    /** One thing to undo after a test. */
    private interface Cleanup
    {
        void run() throws Exception;
    }

    @AfterEach
    void close() throws Exception
    {
        if (child != null)
        {
            child.close();
        }
        engines.close();
        for (int i = cleanups.size() - 1; i >= 0; i--)
        {
            cleanups.get(i).run();
        }
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
            .hasMessageContaining("already bound by a live process")
            .hasRootCauseInstanceOf(AddressInUseException.class);
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

    /** Skips a test that runs a peer as nobody:nogroup: it needs root and setpriv; the setpriv launcher. */
    private static Path setprivAsRoot() throws IOException
    {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(ownUser().getName()),
            "runs as root only: it starts a peer as uid 65534");
        final Path setpriv = Stream.of("/usr/bin/setpriv", "/bin/setpriv").map(Path::of).filter(Files::isExecutable)
            .findFirst().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(setpriv != null, "needs setpriv (util-linux)");
        return setpriv;
    }

    /** The probe's source in a directory nobody may read; deleted with it after the test. */
    private Path probeSource() throws IOException
    {
        final Path probeDir = Files.createTempDirectory("xio-probe");
        Files.setPosixFilePermissions(probeDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        final Path probe = probeDir.resolve("Probe.java");
        Files.writeString(probe, PROBE);
        Files.setPosixFilePermissions(probe, PosixFilePermissions.fromString("rw-r--r--"));
        cleanups.add(() ->
        {
            Files.deleteIfExists(probe);
            Files.deleteIfExists(probeDir);
        });
        return probe;
    }

    /**
     * Another user cannot come in even where the file system would let it (the test opens the directory and socket
     * to everyone): the portal reads the peer's uid from the socket and closes it at once. A process whose
     * effective group is the portal's group completes the handshake with a ring as a client of another user makes
     * it (its own directory, 0710, a secret name), but not with a ring of someone else's.
     */
    @Test
    void aPeerOfAnotherUserIsClosedAtOnceAndOneOfTheGroupHandsOverItsRing() throws Exception
    {
        final Path setpriv = setprivAsRoot();
        final Path probe = probeSource();
        final Path home = DIR.resolve("xio-" + name);
        final XioEngine server = engines.start("server");
        final Portal portal = server.bind("shm://" + name);
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(home.resolve("portal.sock"), PosixFilePermissions.fromString("rw-rw-rw-"));
        assertThat(runAsNobody(setpriv, probe, "probe", home.resolve("portal.sock").toString())).isEqualTo("closed");
        assertThat(server.refusals().get(io.xio.engine.PeerRefusal.PEER_CREDENTIALS)).isEqualTo(1);
        portal.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> !Files.exists(home, LinkOption.NOFOLLOW_LINKS));

        final XioEngine grouped = engines.start(engines.builder("grouped")
            .transport(new ShmTransport(DIR, 64 << 10, "nogroup")));
        grouped.bind("shm://" + name);
        final String socket = home.resolve("portal.sock").toString();
        final String length = Long.toString(ShmLayout.fileLength(64 << 10));
        assertThat(runAsNobody(setpriv, probe, "ring", socket, DIR.toString(), name, length, "65536"))
            .as("let in by the group's permissions and the uid check, its ring mapped and acknowledged")
            .isEqualTo("acked");
        // A ring of another user (here the test's), named by the group member: the portal must not map it.
        final Path foreign = DIR.resolve("xio-" + name + "-" + ProcessHandle.current().pid() + "-9-abc.ring");
        Files.write(foreign, new byte[4096]);
        cleanups.add(() -> Files.deleteIfExists(foreign));
        assertThat(runAsNobody(setpriv, probe, "ring", socket, DIR.toString(), name, length, "65536",
            foreign.getFileName().toString())).as("a ring that is not the peer's").isEqualTo("closed");
        assertThat(Files.exists(foreign)).as("not deleted either").isTrue();
        assertThat(grouped.refusals().get(io.xio.engine.PeerRefusal.PEER_CREDENTIALS)).isZero();
    }

    /**
     * A client of the group connecting to another user's portal: its ring is in a directory of its own that the
     * group may enter but not list, under a name only the socket told; the portal (here a stand-in run as nobody,
     * the portal owner the client trusts) cannot list it but can open the ring it was told of.
     */
    @Test
    void aRingForAnotherUsersPortalIsInADirectoryTheGroupCannotList() throws Exception
    {
        final Path setpriv = setprivAsRoot();
        final Path probe = probeSource();
        final Path home = DIR.resolve("xio-" + name);
        cleanups.add(() -> deleteTree(home));
        final Process portal = startAsNobody(setpriv, probe, "portal", DIR.toString(), name);
        final java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(
            portal.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("listening");
        final XioEngine client = engines.start(engines.builder("client")
            .transport(new ShmTransport(DIR, 64 << 10, "nogroup", "nobody")));
        final java.util.concurrent.CompletableFuture<Session> opening = client.openSession("shm://" + name + "/x",
            SessionOptions.DEFAULT);
        final String hello = out.readLine();
        assertThat(hello).startsWith("hello xio-" + name + "-").matches("hello .*\\.d/[0-9a-f]{32}\\.ring");
        final Path ring = DIR.resolve(hello.substring("hello ".length()));
        final PosixFileAttributes ringHome = Files.readAttributes(ring.getParent(), PosixFileAttributes.class,
            LinkOption.NOFOLLOW_LINKS);
        assertThat(ringHome.permissions()).isEqualTo(PosixFilePermissions.fromString("rwx--x---"));
        assertThat(ringHome.group().getName()).isEqualTo("nogroup");
        assertThat(out.readLine()).as("the portal's user cannot list it").isEqualTo("unlistable");
        assertThat(out.readLine()).as("but opens the ring it was told of").isEqualTo("opened");
        portal.getOutputStream().write('\n');
        portal.getOutputStream().flush();
        assertThat(opening).as("the stand-in speaks no sessions").failsWithin(Duration.ofSeconds(30));
        assertThat(portal.waitFor(30, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> !Files.exists(ring.getParent(), LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * Another local user that took a portal's name (before the real portal bound it, or after it closed) gets no
     * client: one whose directory is another user's is refused before the connect, and one listening in a directory
     * of the right user is refused by its uid on the socket. The portal's own bind fails naming the user.
     */
    @Test
    void aClientRefusesAPortalOfAnotherUserAndTheRealPortalsBindNamesTheSquatter() throws Exception
    {
        final Path setpriv = setprivAsRoot();
        final Path probe = probeSource();
        final Path home = DIR.resolve("xio-" + name);
        cleanups.add(() -> deleteTree(home));
        final Process squatter = startAsNobody(setpriv, probe, "portal", DIR.toString(), name);
        final java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(
            squatter.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("listening");
        final XioEngine client = engines.start("client");
        assertThatThrownBy(() -> client.connect("shm://" + name + "/x")).isInstanceOf(XioException.class)
            .hasMessageContaining("belongs to user nobody");
        final XioEngine server = engines.start("server");
        assertThatThrownBy(() -> server.bind("shm://" + name)).isInstanceOf(XioException.class)
            .hasMessageContaining("belongs to user nobody");
        assertThat(Files.exists(home.resolve("portal.sock"), LinkOption.NOFOLLOW_LINKS))
            .as("the squatter's socket is not the bind's to delete").isTrue();
        squatter.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        deleteTree(home);

        // The directory is the right user's (the test's), the listener is not.
        Files.createDirectory(home);
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxrwxrwx"));
        final Process inside = startAsNobody(setpriv, probe, "portal", DIR.toString(), name);
        final java.io.BufferedReader insideOut = new java.io.BufferedReader(new java.io.InputStreamReader(
            inside.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
        assertThat(insideOut.readLine()).isEqualTo("listening");
        assertThatThrownBy(() -> client.connect("shm://" + name + "/x")).isInstanceOf(XioException.class)
            .hasMessageContaining("runs as user nobody");
        inside.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        assertThat(files()).as("no ring left behind").containsExactly(home);
    }

    @Test
    void aLinkInPlaceOfThePortalsDirectoryIsNeitherFollowedByTheBindNorByAClient() throws Exception
    {
        final Path target = Files.createTempDirectory("xio-target");
        final Path home = DIR.resolve("xio-" + name);
        cleanups.add(() ->
        {
            Files.deleteIfExists(home);
            deleteTree(target);
        });
        final Path decoy = Files.createFile(target.resolve("portal.sock"));
        Files.createSymbolicLink(home, target);
        final XioEngine server = engines.start("server");
        assertThatThrownBy(() -> server.bind("shm://" + name)).isInstanceOf(XioException.class)
            .hasMessageContaining("is not a directory");
        assertThat(Files.exists(decoy)).as("nothing deleted through the link").isTrue();
        final XioEngine client = engines.start("client");
        assertThatThrownBy(() -> client.connect("shm://" + name + "/x")).isInstanceOf(XioException.class)
            .hasMessageContaining("is not a portal's directory");
        assertThat(Files.isSymbolicLink(home)).isTrue();
    }

    @Test
    void aRefusedConnectLeavesTheDeadPortalsSocketToTheNextBind() throws Exception
    {
        final Path home = Files.createDirectory(DIR.resolve("xio-" + name),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        final Path socket = home.resolve("portal.sock");
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX))
        {
            dead.bind(UnixDomainSocketAddress.of(socket));
        }
        final XioEngine client = engines.start("client");
        assertThatThrownBy(() -> client.connect("shm://" + name + "/x")).isInstanceOf(XioException.class);
        assertThat(Files.exists(socket, LinkOption.NOFOLLOW_LINKS)).as("a restarting portal's, maybe").isTrue();
        final XioEngine server = engines.start("server");
        server.register("echo", ECHO);
        final Portal portal = server.bind("shm://" + name);
        try (Session session = client.connect(portal.uri().withResource("echo").toString());
             Message reply = session.request(Outbound.of(utf8("after"))).get(5, TimeUnit.SECONDS))
        {
            assertThat(text(reply.header())).isEqualTo("after");
        }
    }

    private static void deleteTree(final Path root) throws IOException
    {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS))
        {
            return;
        }
        if (Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS))
        {
            try (Stream<Path> children = Files.list(root))
            {
                for (final Path child : children.toList())
                {
                    deleteTree(child);
                }
            }
        }
        Files.deleteIfExists(root);
    }

    private Process startAsNobody(final Path setpriv, final Path probe, final String... args) throws IOException
    {
        final String launcher = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final List<String> command = new ArrayList<>(List.of(setpriv.toString(), "--reuid=65534", "--regid=65534",
            "--clear-groups", launcher, probe.toString()));
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        cleanups.add(() -> process.destroyForcibly().waitFor(10, TimeUnit.SECONDS));
        return process;
    }

    /** Runs the probe as nobody:nogroup with the test's JDK; the last line it printed. */
    private String runAsNobody(final Path setpriv, final Path probe, final String... args) throws Exception
    {
        final Process process = startAsNobody(setpriv, probe, args);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the probe ends").isTrue();
        final String out = new String(process.getInputStream().readAllBytes(),
            java.nio.charset.StandardCharsets.UTF_8).trim();
        return out.substring(out.lastIndexOf('\n') + 1);
    }

    /**
     * A peer run as another user: {@code probe SOCKET} connects and says whether the portal closed it within 3 s
     * ("closed") or not ("open"); {@code ring SOCKET DIR NAME LENGTH CAPACITY [FOREIGN]} does a client's handshake
     * with a ring shared as xio shares one with another user's portal (or names FOREIGN instead) and says "acked"
     * or "closed"; {@code portal DIR NAME} stands in for a portal: binds DIR/xio-NAME/portal.sock (creating the
     * directory unless there), says "listening", then for one client its hello, whether it can list the ring's
     * directory and open the ring, acknowledges once a line comes in and waits for the client to go.
     */
    private static final String PROBE = String.join("\n",
        "import java.net.UnixDomainSocketAddress;",
        "import java.net.StandardProtocolFamily;",
        "import java.nio.ByteBuffer;",
        "import java.nio.ByteOrder;",
        "import java.nio.channels.*;",
        "import java.nio.file.*;",
        "import java.nio.file.attribute.PosixFilePermissions;",
        "public class Probe {",
        "    public static void main(String[] args) throws Exception {",
        "        switch (args[0]) {",
        "            case \"probe\" -> probe(args[1]);",
        "            case \"ring\" -> ring(args);",
        "            default -> portal(Path.of(args[1]), args[2]);",
        "        }",
        "    }",
        "    static void probe(String socket) throws Exception {",
        "        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket));",
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
        "    static void ring(String[] args) throws Exception {",
        "        Path dir = Path.of(args[2]);",
        "        String stem = \"xio-\" + args[3] + \"-\" + ProcessHandle.current().pid() + \"-1-abc.d\";",
        "        Path home = dir.resolve(stem);",
        "        Path ring = home.resolve(\"0123456789abcdef0123456789abcdef.ring\");",
        "        String named = stem + \"/\" + ring.getFileName();",
        "        if (args.length > 6) {",
        "            named = args[6];",
        "        } else {",
        "            Files.createDirectory(home, PosixFilePermissions.asFileAttribute(",
        "                PosixFilePermissions.fromString(\"rwx------\")));",
        "            try (FileChannel file = FileChannel.open(ring, StandardOpenOption.CREATE_NEW,",
        "                StandardOpenOption.READ, StandardOpenOption.WRITE)) {",
        "                ByteBuffer header = ByteBuffer.allocate(12).order(ByteOrder.nativeOrder());",
        "                header.putInt(0x58494F53).putInt(1).putInt(Integer.parseInt(args[5])).flip();",
        "                file.write(header, 0);",
        "                file.write(ByteBuffer.allocate(1), Long.parseLong(args[4]) - 1);",
        "            }",
        "            Files.setPosixFilePermissions(ring, PosixFilePermissions.fromString(\"rw-rw----\"));",
        "            Files.setPosixFilePermissions(home, PosixFilePermissions.fromString(\"rwx--x---\"));",
        "        }",
        "        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(args[1]))) {",
        "            byte[] name = named.getBytes(java.nio.charset.StandardCharsets.UTF_8);",
        "            ByteBuffer hello = ByteBuffer.allocate(2 + name.length);",
        "            hello.putShort((short)name.length).put(name).flip();",
        "            while (hello.hasRemaining()) channel.write(hello);",
        "            ByteBuffer ack = ByteBuffer.allocate(1);",
        "            int n = channel.read(ack);",
        "            System.out.println(n == 1 && ack.get(0) == 1 ? \"acked\" : \"closed\");",
        "        } finally {",
        "            Files.deleteIfExists(ring);",
        "            Files.deleteIfExists(home);",
        "        }",
        "    }",
        "    static void portal(Path dir, String name) throws Exception {",
        "        Path home = dir.resolve(\"xio-\" + name);",
        "        if (!Files.exists(home)) {",
        "            Files.createDirectory(home);",
        "            Files.setPosixFilePermissions(home, PosixFilePermissions.fromString(\"rwxr-xr-x\"));",
        "        }",
        "        Path socket = home.resolve(\"portal.sock\");",
        "        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {",
        "            server.bind(UnixDomainSocketAddress.of(socket));",
        "            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString(\"rw-rw-rw-\"));",
        "            System.out.println(\"listening\");",
        "            try (SocketChannel client = server.accept()) {",
        "                ByteBuffer hello = ByteBuffer.allocate(514);",
        "                while (hello.position() < 2 || hello.position() < 2 + hello.getShort(0)) {",
        "                    if (client.read(hello) < 0) return;",
        "                }",
        "                String named = new String(hello.array(), 2, hello.getShort(0),",
        "                    java.nio.charset.StandardCharsets.UTF_8);",
        "                System.out.println(\"hello \" + named);",
        "                Path ring = dir.resolve(named);",
        "                try (DirectoryStream<Path> list = Files.newDirectoryStream(ring.getParent())) {",
        "                    list.iterator().hasNext();",
        "                    System.out.println(\"listable\");",
        "                } catch (java.io.IOException | DirectoryIteratorException e) {",
        "                    System.out.println(\"unlistable\");",
        "                }",
        "                try (FileChannel file = FileChannel.open(ring, StandardOpenOption.READ,",
        "                    StandardOpenOption.WRITE)) {",
        "                    System.out.println(\"opened\");",
        "                } catch (java.io.IOException e) {",
        "                    System.out.println(\"unopenable: \" + e);",
        "                }",
        "                System.in.read(); // the test has looked at the ring",
        "                client.write(ByteBuffer.wrap(new byte[] {1}));",
        "                client.read(ByteBuffer.allocate(1 << 16));",
        "            }",
        "        } finally {",
        "            Files.deleteIfExists(socket);",
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
    void twoProcessesTalkAndAKilledServerFailsEveryCallerLeavingOnlyItsSocket() throws Exception
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
        // The dead portal's socket stays for the next bind of its name to remove (a client's refused connect must
        // not: the portal may be restarting); no ring stays.
        final Path home = DIR.resolve("xio-" + name);
        await().atMost(Duration.ofSeconds(10)).until(() -> files().equals(List.of(home)));
        final XioEngine restarted = engines.start("restarted");
        restarted.bind("shm://" + name).close();
        await().atMost(Duration.ofSeconds(10)).until(() -> files().isEmpty());
    }
}
