package io.xio.engine.transport.shm;

import io.xio.engine.ConnectionException;
import io.xio.engine.PeerIdentity;
import io.xio.engine.PeerRefusal;
import io.xio.engine.XioUri;
import io.xio.engine.transport.AddressInUseException;
import io.xio.engine.transport.Channels;
import io.xio.engine.transport.SelectionHandler;
import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;
import io.xio.engine.transport.TransportListener;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The {@code shm} transport: connections between processes on one host through memory-mapped rings. A
 * portal {@code shm://name} listens on the Unix-domain socket {@code <dir>/xio-<name>/portal.sock}, in a directory
 * of its own. The client creates a ring file and sends its name over the socket; the server checks and maps it, and
 * both keep the socket as doorbell and liveness signal. For a portal of its own user the ring is {@code
 * <dir>/xio-<name>-<pid>-<n>-<nonce>.ring}, 0600; for a portal of another user (group mode) it lies in a directory of
 * the client's own, {@code xio-<name>-<pid>-<n>-<nonce>.d}. A ring file (and its directory) must belong to the peer
 * that names it. The peer's user is the link's {@link PeerIdentity#localUser()}, for an acceptor to authenticate
 * local peers by. Who may use a portal and whose portal a client reaches (the directories' and socket's permissions,
 * the peers' credentials, the group mode) is decided by {@code ShmAccess}, whose Javadoc says how. Nothing is left
 * once a handshake completes, nor of the portal once it closes; a portal that finds a stale socket (no listener) or
 * ring files of dead processes cleans them up. Thread-safe.
 */
public final class ShmTransport implements Transport
{
    private static final Logger LOG = LoggerFactory.getLogger(ShmTransport.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final AtomicLong RINGS = new AtomicLong();
    private static final int DEFAULT_CAPACITY = 4 << 20;
    private static final int MIN_CAPACITY = 64 << 10;
    private static final int MAX_CAPACITY = 256 << 20;
    private static final long HANDSHAKE_TIMEOUT_NANOS = 5_000_000_000L;

    /** The system property naming the group the default transport's portals admit besides their own user. */
    public static final String GROUP_PROPERTY = "xio.shm.group";
    /** The system property naming the user whose portals the default transport's clients trust besides their own. */
    public static final String PORTAL_OWNER_PROPERTY = "xio.shm.portal-owner";
    private static final String SOCKET = "portal.sock";

    private final Path directory;
    private final int capacity;
    /** Who may use this transport's portals, and whose portals its clients reach. */
    private final ShmAccess access;

    /**
     * Rings of 4 MiB per direction under {@code /dev/shm} (or the temp directory where there is none); portals admit
     * their own user, and the group the system property {@value #GROUP_PROPERTY} names, if set; clients connect to
     * portals of their own user, and of the user the system property {@value #PORTAL_OWNER_PROPERTY} names, if set.
     */
    public ShmTransport()
    {
        this(defaultDirectory(), DEFAULT_CAPACITY, System.getProperty(GROUP_PROPERTY),
            System.getProperty(PORTAL_OWNER_PROPERTY));
    }

    /**
     * @param directory where sockets and ring files live: a memory-backed file system such as /dev/shm
     * @param capacity bytes per ring and direction, a power of two from 64 KiB to 256 MiB
     */
    public ShmTransport(final Path directory, final int capacity)
    {
        this(directory, capacity, null);
    }

    /**
     * @param directory where sockets and ring files live: a memory-backed file system such as /dev/shm
     * @param capacity bytes per ring and direction, a power of two from 64 KiB to 256 MiB
     * @param group a group whose members (processes running with it as their effective group) a portal admits
     * besides its own user; null or empty for its own user only
     */
    public ShmTransport(final Path directory, final int capacity, final String group)
    {
        this(directory, capacity, group, null);
    }

    /**
     * @param directory where sockets and ring files live: a memory-backed file system such as /dev/shm
     * @param capacity bytes per ring and direction, a power of two from 64 KiB to 256 MiB
     * @param group a group whose members (processes running with it as their effective group) a portal admits
     * besides its own user, and the group a client shares its rings with when it connects to a portal of {@code
     * portalOwner}; null or empty for none
     * @param portalOwner the user whose portals a client connects to besides its own user's (a client of the group
     * connecting to a service's portal); null or empty for its own user's only
     */
    public ShmTransport(final Path directory, final int capacity, final String group, final String portalOwner)
    {
        if (!validCapacity(capacity))
        {
            throw new IllegalArgumentException("shm ring capacity must be a power of two from 64 KiB to 256 MiB, was " +
                capacity);
        }
        this.directory = directory.toAbsolutePath().normalize();
        this.capacity = capacity;
        this.access = new ShmAccess(this.directory, group == null || group.isBlank() ? null : group.trim(),
            portalOwner == null || portalOwner.isBlank() ? null : portalOwner.trim());
    }

    private static boolean validCapacity(final int capacity)
    {
        return Integer.bitCount(capacity) == 1 && capacity >= MIN_CAPACITY && capacity <= MAX_CAPACITY;
    }

    private static Path defaultDirectory()
    {
        return io.xio.engine.memory.SharedMemory.defaultDirectory();
    }

    public Path directory()
    {
        return directory;
    }

    @Override
    public Path sharedMemoryDirectory()
    {
        return directory;
    }

    @Override
    public String scheme()
    {
        return "shm";
    }

    private static String checkedName(final XioUri address)
    {
        final String name = address.host();
        if (!NAME.matcher(name).matches())
        {
            throw new IllegalArgumentException("shm portal name '" + name + "' must be 1-64 of A-Z a-z 0-9 . _ -");
        }
        return name;
    }

    /** The portal's own directory, which holds its socket and nothing else. */
    private Path portalDirectory(final String name)
    {
        return directory.resolve("xio-" + name);
    }

    private Path socketPath(final String name)
    {
        return portalDirectory(name).resolve(SOCKET);
    }

    @Override
    public TransportListener listen(final XioUri address, final TransportContext context,
        final Consumer<TransportLink> onAccept) throws IOException
    {
        final String name = checkedName(address);
        final Path socket = socketPath(name);
        final Path home = socket.getParent();
        final ShmAccess.Admission admission;
        final ServerSocketChannel server;
        try
        {
            ShmAccess.checkPeerCredentials();
            // Ours (and no link) before anything in it is touched: a stale socket in another user's directory is not
            // ours to probe or delete.
            final UserPrincipal owner = access.ownDirectory(home);
            removeStale(name, socket, owner);
            admission = access.restrict(home, owner);
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            throw new IOException("cannot bind shm portal " + address + " at " + socket + ": " + ex.getMessage(), ex);
        }
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try
        {
            server.bind(UnixDomainSocketAddress.of(socket));
        }
        catch (final IOException | RuntimeException ex)
        {
            // Nothing of ours to delete: the socket there (if any) is a portal's that bound first.
            server.close();
            throw new IOException("cannot bind shm portal " + address + " at " + socket + ": " + ex.getMessage(), ex);
        }
        try
        {
            server.configureBlocking(false);
            // Nobody else can reach the socket yet: the directory lets only the owner (and the group) in.
            if (admission.group() != null)
            {
                Files.getFileAttributeView(socket, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .setGroup(admission.group());
            }
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString(admission.group() != null ?
                "rw-rw----" : "rw-------"));
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            server.close();
            deleteQuietly(socket); // bound by us above
            deleteQuietly(home);
            throw new IOException("cannot bind shm portal " + address + " at " + socket + ": " + ex.getMessage(), ex);
        }
        final Pattern rings = Pattern.compile(Pattern.quote("xio-" + name + "-") +
            "\\d+-\\d+-[0-9a-f]+(\\.ring|\\.d/[0-9a-f]{32}\\.ring)");
        final SelectionKey key = server.register(context.selector(), SelectionKey.OP_ACCEPT, null);
        key.attach((SelectionHandler)selected ->
        {
            while (true)
            {
                final SocketChannel channel;
                try
                {
                    channel = server.accept();
                }
                catch (final IOException ex)
                {
                    Channels.pauseAccepting(key, context, address, ex);
                    return;
                }
                if (channel == null)
                {
                    return;
                }
                try
                {
                    final UserPrincipal peer = admission.admit(channel);
                    if (peer == null)
                    {
                        continue;
                    }
                    new ServerHandshake(context, channel, name, rings, key, onAccept, peer).start();
                }
                catch (final IOException | RuntimeException ex)
                {
                    Channels.closeQuietly(channel);
                    if (ex instanceof ShmAccess.RefusedPeer refused)
                    {
                        context.refused(PeerRefusal.PEER_CREDENTIALS, "shm://" + refused.getMessage() + "@" + name,
                            "local peer " + refused.getMessage() + " refused by portal shm://" + name + ": it " +
                            "admits only " + admission.describe());
                    }
                }
            }
        });
        return TransportListener.of(address.endpoint(), () ->
        {
            key.cancel();
            Channels.closeQuietly(server);
            deleteQuietly(socket);
            deleteQuietly(home);
        });
    }

    /**
     * A portal of this name bound by a live process fails the bind; leftovers of a dead one are removed: its socket
     * (in the directory {@link ShmAccess#ownDirectory} found ours), ring files of dead clients, and ring directories
     * of dead clients of this user ({@code owner}; another user's are theirs, and only theirs cannot be swapped for a
     * link while they are emptied).
     */
    private void removeStale(final String name, final Path socket, final UserPrincipal owner) throws IOException
    {
        if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS))
        {
            boolean live;
            try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(socket)))
            {
                live = probe.isConnected();
            }
            catch (final IOException ex)
            {
                live = false;
            }
            if (live)
            {
                throw new AddressInUseException("shm portal '" + name + "' is already bound by a live process (" +
                    socket + ")");
            }
            LOG.info("removing stale shm socket {}", socket);
            Files.deleteIfExists(socket);
        }
        final String prefix = "xio-" + name + "-";
        try (DirectoryStream<Path> rings = Files.newDirectoryStream(directory, prefix + "*.{ring,d}"))
        {
            for (final Path ring : rings)
            {
                final String rest = ring.getFileName().toString().substring(prefix.length());
                final int dash = rest.indexOf('-');
                final long pid = dash > 0 ? parsePid(rest.substring(0, dash)) : -1;
                if (pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                {
                    continue; // a live client mid-handshake
                }
                if (Files.isDirectory(ring, LinkOption.NOFOLLOW_LINKS))
                {
                    if (!owner.equals(Files.getOwner(ring, LinkOption.NOFOLLOW_LINKS)))
                    {
                        continue;
                    }
                    try (DirectoryStream<Path> inside = Files.newDirectoryStream(ring, "*.ring"))
                    {
                        for (final Path file : inside)
                        {
                            deleteQuietly(file);
                        }
                    }
                }
                LOG.info("removing stale shm ring {}", ring);
                deleteQuietly(ring);
            }
        }
    }

    private static long parsePid(final String text)
    {
        try
        {
            return Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    @Override
    public Runnable connect(final XioUri address, final TransportContext context, final ConnectCallback callback)
    {
        final String name;
        try
        {
            name = checkedName(address);
        }
        catch (final IllegalArgumentException ex)
        {
            callback.onFailed(new ConnectionException("cannot connect to " + address.endpoint() + ": " +
                ex.getMessage()));
            return () -> { };
        }
        final Path socket = socketPath(name);
        final String stem = "xio-" + name + "-" + ProcessHandle.current().pid() + "-" + RINGS.incrementAndGet() + "-" +
            Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
        MappedByteBuffer mapping = null;
        SocketChannel channel = null;
        Path ringFile = null;
        Path ringHome = null;
        UserPrincipal portal = null;
        try
        {
            portal = access.checkPortal(socket.getParent());
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(socket));
            final UserPrincipal listening = ShmAccess.peerCredentials(channel).user();
            if (!listening.equals(portal))
            {
                throw new IOException("the process listening on " + socket + " runs as user " + listening.getName() +
                    ", not as " + portal.getName() + " who owns the portal's directory: not handing it a ring");
            }
            final GroupPrincipal shared = portal.equals(access.ownUser()) ? null : access.sharedGroup(portal);
            if (shared == null)
            {
                ringFile = directory.resolve(stem + ".ring");
                mapping = createRing(ringFile);
            }
            else
            {
                ringHome = directory.resolve(stem + ".d");
                ringFile = ringHome.resolve(ShmAccess.secretName());
                mapping = createSharedRing(ringHome, ringFile, shared);
            }
            final String named = ringHome == null ? ringFile.getFileName().toString() :
                ringHome.getFileName() + "/" + ringFile.getFileName();
            final byte[] fileName = named.getBytes(StandardCharsets.UTF_8);
            final ByteBuffer hello = ByteBuffer.allocate(2 + fileName.length);
            hello.putShort((short)fileName.length).put(fileName).flip();
            while (hello.hasRemaining())
            {
                channel.write(hello);
            }
            channel.configureBlocking(false);
        }
        catch (final IOException | RuntimeException ex)
        {
            if (channel != null)
            {
                Channels.closeQuietly(channel);
            }
            if (mapping != null)
            {
                IoUtil.unmap(mapping);
            }
            deleteRing(ringFile, ringHome); // ours, if created above; a refused connect's socket is the portal's
            callback.onFailed(new ConnectionException("cannot connect to " + address.endpoint() + ": " +
                (Files.isDirectory(directory) ? "" : directory + " does not exist; ") + ex.getMessage(), ex));
            return () -> { };
        }
        final ClientHandshake handshake = new ClientHandshake(context, channel, mapping, ringFile, ringHome, address,
            callback, portal);
        try
        {
            channel.register(context.selector(), SelectionKey.OP_READ, handshake);
        }
        catch (final IOException ex)
        {
            handshake.fail(ex);
            return () -> { };
        }
        return handshake::abort;
    }

    /**
     * A ring for another user's portal: in {@code ringHome}, a directory of this user, owner-only until the ring is
     * complete and then opened to the group ({@link ShmAccess#share}).
     */
    private MappedByteBuffer createSharedRing(final Path ringHome, final Path ringFile, final GroupPrincipal shared)
        throws IOException
    {
        Files.createDirectory(ringHome, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
            "rwx------")));
        final MappedByteBuffer mapping = createRing(ringFile);
        ShmAccess.share(ringHome, ringFile, shared);
        return mapping;
    }

    /** Deletes a ring this client created, and its directory if it has one; null for none. */
    private static void deleteRing(final Path ringFile, final Path ringHome)
    {
        if (ringFile != null)
        {
            deleteQuietly(ringFile);
        }
        if (ringHome != null)
        {
            deleteQuietly(ringHome);
        }
    }

    /** A new ring file, owner-only, its pages reserved through the file system (a full tmpfs fails here). */
    private MappedByteBuffer createRing(final Path ringFile) throws IOException
    {
        final long length = ShmLayout.fileLength(capacity);
        Files.createFile(ringFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (FileChannel file = FileChannel.open(ringFile, StandardOpenOption.READ, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS))
        {
            final ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
            for (long at = 0; at < length; at += zeros.capacity())
            {
                zeros.clear().limit((int)Math.min(zeros.capacity(), length - at));
                while (zeros.hasRemaining())
                {
                    file.write(zeros, at + zeros.position());
                }
            }
            final MappedByteBuffer mapping = file.map(FileChannel.MapMode.READ_WRITE, 0, length);
            final UnsafeBuffer header = new UnsafeBuffer(mapping);
            header.putInt(ShmLayout.CAPACITY_OFFSET, capacity);
            header.putInt(ShmLayout.VERSION_OFFSET, ShmLayout.VERSION);
            header.putInt(ShmLayout.CLIENT_FEATURES_OFFSET, ShmLayout.FEATURE_SHARED);
            header.putIntVolatile(ShmLayout.MAGIC_OFFSET, ShmLayout.MAGIC);
            return mapping;
        }
        catch (final IOException | RuntimeException ex)
        {
            deleteQuietly(ringFile);
            throw ex;
        }
    }

    /** Waits on the context for the server's one-byte acknowledgement. */
    private final class ClientHandshake implements SelectionHandler
    {
        private final TransportContext context;
        private final SocketChannel channel;
        private final MappedByteBuffer mapping;
        private final Path ringFile;
        /** The ring's own directory (a ring shared with another user's portal); null for none. */
        private final Path ringHome;
        private final XioUri address;
        private final ConnectCallback callback;
        private final ByteBuffer ack = ByteBuffer.allocate(1);
        /** The portal's user (its process's credentials): whose shared-memory files the server may name. */
        private final UserPrincipal portal;
        private boolean done;

        ClientHandshake(final TransportContext context, final SocketChannel channel, final MappedByteBuffer mapping,
            final Path ringFile, final Path ringHome, final XioUri address, final ConnectCallback callback,
            final UserPrincipal portal)
        {
            this.portal = portal;
            this.context = context;
            this.channel = channel;
            this.mapping = mapping;
            this.ringFile = ringFile;
            this.ringHome = ringHome;
            this.address = address;
            this.callback = callback;
        }

        @Override
        public void onSelected(final SelectionKey key)
        {
            final ShmLink link;
            try
            {
                final int n = channel.read(ack);
                if (n == 0)
                {
                    return;
                }
                if (n < 0 || ack.get(0) != 1)
                {
                    throw new IOException("the portal refused the shm connection");
                }
                key.interestOps(0);
                done = true;
                // The server deleted a ring of its own user already; this is for one that died halfway, and for a
                // shared ring, whose directory another user's server cannot write.
                deleteRing(ringFile, ringHome);
                link = new ShmLink(context, mapping, capacity, false, channel, address.endpoint().toString(), null,
                    directory, portal, access.ownUser());
            }
            catch (final IOException | RuntimeException ex)
            {
                key.cancel();
                fail(ex);
                return;
            }
            callback.onConnected(link);
        }

        void fail(final Exception ex)
        {
            done = true;
            Channels.closeQuietly(channel);
            IoUtil.unmap(mapping);
            deleteRing(ringFile, ringHome);
            callback.onFailed(new ConnectionException("cannot connect to " + address.endpoint() + ": " +
                ex.getMessage(), ex));
        }

        /** The dial timed out or the engine closes: give everything back, unless the link exists already. */
        void abort()
        {
            if (!done)
            {
                done = true;
                Channels.closeQuietly(channel);
                IoUtil.unmap(mapping);
                deleteRing(ringFile, ringHome);
            }
        }
    }

    /** Reads the client's ring file name, checks and maps the file, deletes it, acknowledges, hands over. */
    private final class ServerHandshake implements SelectionHandler
    {
        private final TransportContext context;
        private final SocketChannel channel;
        private final String name;
        private final Pattern rings;
        private final SelectionKey listener;
        private final Consumer<TransportLink> onAccept;
        private final UserPrincipal peer;
        private final ByteBuffer hello = ByteBuffer.allocate(2 + 512);
        private long timer;
        private boolean finished;

        ServerHandshake(final TransportContext context, final SocketChannel channel, final String name,
            final Pattern rings, final SelectionKey listener, final Consumer<TransportLink> onAccept,
            final UserPrincipal peer)
        {
            this.context = context;
            this.channel = channel;
            this.name = name;
            this.rings = rings;
            this.listener = listener;
            this.onAccept = onAccept;
            this.peer = peer;
        }

        void start() throws IOException
        {
            channel.configureBlocking(false);
            channel.register(context.selector(), SelectionKey.OP_READ, this);
            timer = context.schedule(context.nanoTime() + HANDSHAKE_TIMEOUT_NANOS, () ->
            {
                if (!finished)
                {
                    finished = true;
                    LOG.warn("shm handshake on portal {} timed out", name);
                    Channels.closeQuietly(channel);
                }
            });
        }

        @Override
        public void onSelected(final SelectionKey key)
        {
            MappedByteBuffer mapping = null;
            final ShmLink link;
            final int ringCapacity;
            try
            {
                if (channel.read(hello) < 0)
                {
                    if (hello.position() == 0)
                    {
                        // a probe (a second portal checking this one is alive): nothing to report
                        finish();
                        key.cancel();
                        Channels.closeQuietly(channel);
                        return;
                    }
                    throw new IOException("client went away during the handshake");
                }
                if (hello.position() < 2 || hello.position() < 2 + hello.getShort(0))
                {
                    return; // not all of it yet
                }
                final int length = hello.getShort(0);
                if (length <= 0 || hello.position() != 2 + length)
                {
                    throw new IOException("malformed shm handshake of " + hello.position() + " bytes");
                }
                if (!listener.isValid())
                {
                    throw new IOException("the portal closed during the handshake");
                }
                final String fileName = new String(hello.array(), 2, length, StandardCharsets.UTF_8);
                if (!rings.matcher(fileName).matches())
                {
                    throw new IOException("'" + fileName + "' is not a ring file of this portal");
                }
                final Path ring = directory.resolve(fileName);
                final boolean shared = !ring.getParent().equals(directory);
                if (shared)
                {
                    // Its directory is not followed if a link, and must be the peer's: in the sticky shm directory
                    // nobody else can swap it.
                    final PosixFileAttributes home = Files.readAttributes(ring.getParent(), PosixFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS);
                    if (!home.isDirectory() || !home.owner().equals(peer))
                    {
                        throw new IOException("shm ring directory " + ring.getParent() + " is not one of the peer " +
                            peer.getName());
                    }
                }
                final PosixFileAttributes attributes = Files.readAttributes(ring, PosixFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
                if (!attributes.isRegularFile())
                {
                    throw new IOException("shm ring " + ring + " is not a regular file");
                }
                if (!attributes.owner().equals(peer))
                {
                    // A peer of the group naming another's ring (the names are listed in the directory) would
                    // take over that client's connection.
                    throw new IOException("shm ring " + ring + " belongs to " + attributes.owner().getName() +
                        ", not to the peer " + peer.getName());
                }
                try (FileChannel file = FileChannel.open(ring, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS))
                {
                    final ByteBuffer header = ByteBuffer.allocate(12).order(ByteOrder.nativeOrder());
                    while (header.hasRemaining() && file.read(header, header.position()) > 0)
                    {
                        Thread.onSpinWait();
                    }
                    ringCapacity = header.getInt(ShmLayout.CAPACITY_OFFSET);
                    if (header.hasRemaining() ||
                        header.getInt(ShmLayout.MAGIC_OFFSET) != ShmLayout.MAGIC ||
                        header.getInt(ShmLayout.VERSION_OFFSET) != ShmLayout.VERSION || !validCapacity(ringCapacity) ||
                        attributes.size() != ShmLayout.fileLength(ringCapacity))
                    {
                        throw new IOException("shm ring " + ring + " is not a ring file of a known layout");
                    }
                    mapping = file.map(FileChannel.MapMode.READ_WRITE, 0, ShmLayout.fileLength(ringCapacity));
                }
                if (!shared)
                {
                    Files.deleteIfExists(ring); // a shared one's directory is the client's to write: it deletes it
                }
                key.interestOps(0);
                new UnsafeBuffer(mapping).putIntVolatile(ShmLayout.SERVER_FEATURES_OFFSET, ShmLayout.FEATURE_SHARED);
                final ByteBuffer ok = ByteBuffer.wrap(new byte[] {1});
                channel.write(ok);
                if (ok.hasRemaining())
                {
                    throw new IOException("could not acknowledge the shm handshake");
                }
                link = new ShmLink(context, mapping, ringCapacity, true, channel,
                    "shm://" + peer.getName() + "@" + name, peer, directory, peer, access.ownUser());
            }
            catch (final IOException | RuntimeException ex)
            {
                LOG.warn("shm handshake on portal {} failed: {}", name, ex.toString());
                finish();
                key.cancel();
                Channels.closeQuietly(channel);
                if (mapping != null)
                {
                    IoUtil.unmap(mapping);
                }
                return;
            }
            finish();
            onAccept.accept(link);
        }

        private void finish()
        {
            finished = true;
            context.cancelTimer(timer);
        }
    }


    private static void deleteQuietly(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final java.nio.file.DirectoryNotEmptyException | java.nio.file.AccessDeniedException ex)
        {
            LOG.debug("cannot delete {}: {}", path, ex.toString()); // another's, or still in use: theirs to remove
        }
        catch (final IOException ex)
        {
            LOG.warn("cannot delete {}", path, ex);
        }
    }
}
