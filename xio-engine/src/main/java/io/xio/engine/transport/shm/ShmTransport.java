package io.xio.engine.transport.shm;

import io.xio.engine.ConnectionException;
import io.xio.engine.XioUri;
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
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The {@code shm} transport: connections between processes on one host through memory-mapped rings. A
 * portal {@code shm://name} listens on the Unix-domain socket {@code <dir>/xio-<name>.sock}; a client creates
 * a ring file {@code <dir>/xio-<name>-<pid>-<n>-<nonce>.ring} (owner-only, its pages reserved up front), sends
 * its file name over the socket, the server checks and maps it and deletes it, and both keep the socket as
 * doorbell and liveness signal. Nothing is left in the directory once a handshake completes; a portal that
 * finds a stale socket (no listener) or ring files of dead processes cleans them up. Thread-safe.
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

    private final Path directory;
    private final int capacity;

    /** Rings of 4 MiB per direction under {@code /dev/shm} (or the temp directory where there is none). */
    public ShmTransport()
    {
        this(defaultDirectory(), DEFAULT_CAPACITY);
    }

    /**
     * @param directory where sockets and ring files live: a memory-backed file system such as /dev/shm
     * @param capacity bytes per ring and direction, a power of two from 64 KiB to 256 MiB
     */
    public ShmTransport(final Path directory, final int capacity)
    {
        if (!validCapacity(capacity))
        {
            throw new IllegalArgumentException("shm ring capacity must be a power of two from 64 KiB to 256 MiB, was " +
                capacity);
        }
        this.directory = directory.toAbsolutePath().normalize();
        this.capacity = capacity;
    }

    private static boolean validCapacity(final int capacity)
    {
        return Integer.bitCount(capacity) == 1 && capacity >= MIN_CAPACITY && capacity <= MAX_CAPACITY;
    }

    private static Path defaultDirectory()
    {
        final Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    public Path directory()
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

    private Path socketPath(final String name)
    {
        return directory.resolve("xio-" + name + ".sock");
    }

    @Override
    public TransportListener listen(final XioUri address, final TransportContext context,
        final Consumer<TransportLink> onAccept) throws IOException
    {
        final String name = checkedName(address);
        final Path socket = socketPath(name);
        removeStale(name, socket);
        final ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try
        {
            server.bind(UnixDomainSocketAddress.of(socket));
            server.configureBlocking(false);
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            server.close();
            throw new IOException("cannot bind shm portal " + address + " at " + socket + ": " + ex.getMessage(), ex);
        }
        final Pattern rings = Pattern.compile(Pattern.quote("xio-" + name + "-") + "\\d+-\\d+-[0-9a-f]+\\.ring");
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
                    new ServerHandshake(context, channel, name, rings, key, onAccept).start();
                }
                catch (final IOException ex)
                {
                    Channels.closeQuietly(channel);
                }
            }
        });
        return TransportListener.of(address.endpoint(), () ->
        {
            key.cancel();
            Channels.closeQuietly(server);
            deleteQuietly(socket);
        });
    }

    /** A portal of this name bound by a live process fails the bind; leftovers of a dead one are removed. */
    private void removeStale(final String name, final Path socket) throws IOException
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
                throw new IOException("shm portal '" + name + "' is already bound by a live process (" + socket + ")");
            }
            LOG.info("removing stale shm socket {}", socket);
            Files.deleteIfExists(socket);
        }
        final String prefix = "xio-" + name + "-";
        try (DirectoryStream<Path> rings = Files.newDirectoryStream(directory, prefix + "*.ring"))
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
                LOG.info("removing stale shm ring file {}", ring);
                Files.deleteIfExists(ring);
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
        final Path ringFile = directory.resolve("xio-" + name + "-" + ProcessHandle.current().pid() + "-" +
            RINGS.incrementAndGet() + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1) + ".ring");
        MappedByteBuffer mapping = null;
        SocketChannel channel = null;
        try
        {
            mapping = createRing(ringFile);
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(socket));
            final byte[] fileName = ringFile.getFileName().toString().getBytes(StandardCharsets.UTF_8);
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
                deleteQuietly(ringFile); // ours: created above
            }
            if (ex instanceof java.net.ConnectException && Files.exists(socket, LinkOption.NOFOLLOW_LINKS))
            {
                deleteQuietly(socket); // refused: nobody listens there, a portal that died (as its bind would find)
            }
            callback.onFailed(new ConnectionException("cannot connect to " + address.endpoint() + ": " +
                (Files.isDirectory(directory) ? "" : directory + " does not exist; ") + ex.getMessage(), ex));
            return () -> { };
        }
        final ClientHandshake handshake = new ClientHandshake(context, channel, mapping, ringFile, address, callback);
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

    /** A new ring file, owner-only, its pages reserved through the file system (a full tmpfs fails here). */
    private MappedByteBuffer createRing(final Path ringFile) throws IOException
    {
        final long length = ShmLayout.fileLength(capacity);
        Files.createFile(ringFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (FileChannel file = FileChannel.open(ringFile, StandardOpenOption.READ, StandardOpenOption.WRITE))
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
        private final XioUri address;
        private final ConnectCallback callback;
        private final ByteBuffer ack = ByteBuffer.allocate(1);
        private boolean done;

        ClientHandshake(final TransportContext context, final SocketChannel channel, final MappedByteBuffer mapping,
            final Path ringFile, final XioUri address, final ConnectCallback callback)
        {
            this.context = context;
            this.channel = channel;
            this.mapping = mapping;
            this.ringFile = ringFile;
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
                deleteQuietly(ringFile); // the server deleted it already; this is for a server that died halfway
                link = new ShmLink(context, mapping, capacity, false, channel, address.endpoint().toString());
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
            deleteQuietly(ringFile);
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
                deleteQuietly(ringFile);
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
        private final ByteBuffer hello = ByteBuffer.allocate(2 + 512);
        private long timer;
        private boolean finished;

        ServerHandshake(final TransportContext context, final SocketChannel channel, final String name,
            final Pattern rings, final SelectionKey listener, final Consumer<TransportLink> onAccept)
        {
            this.context = context;
            this.channel = channel;
            this.name = name;
            this.rings = rings;
            this.listener = listener;
            this.onAccept = onAccept;
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
                final BasicFileAttributes attributes = Files.readAttributes(ring, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
                if (!attributes.isRegularFile())
                {
                    throw new IOException("shm ring " + ring + " is not a regular file");
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
                Files.deleteIfExists(ring);
                key.interestOps(0);
                final ByteBuffer ok = ByteBuffer.wrap(new byte[] {1});
                channel.write(ok);
                if (ok.hasRemaining())
                {
                    throw new IOException("could not acknowledge the shm handshake");
                }
                link = new ShmLink(context, mapping, ringCapacity, true, channel, "shm://client@" + name);
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
        catch (final IOException ex)
        {
            LOG.warn("cannot delete {}", path, ex);
        }
    }
}
