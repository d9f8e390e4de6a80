package io.xio.engine.transport.shm;

import io.xio.engine.ConnectionException;
import io.xio.engine.XioUri;
import io.xio.engine.transport.SelectionHandler;
import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;
import io.xio.engine.transport.TransportListener;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The {@code shm} transport: connections between processes on one host through memory-mapped rings. A
 * portal {@code shm://name} listens on the Unix-domain socket {@code <dir>/xio-<name>.sock}; a client creates
 * a ring file {@code <dir>/xio-<name>-<pid>-<n>.ring}, sends its path over the socket, the server maps it and
 * deletes it, and both keep the socket as doorbell and liveness signal. Nothing is left in the directory
 * once a handshake completes; a portal that finds a stale socket (no listener) or ring files of dead
 * processes cleans them up. Thread-safe.
 */
public final class ShmTransport implements Transport
{
    private static final Logger LOG = LoggerFactory.getLogger(ShmTransport.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final AtomicLong RINGS = new AtomicLong();
    private static final int DEFAULT_CAPACITY = 4 << 20;

    private final Path directory;
    private final int capacity;

    /** Rings of 4 MiB per direction under {@code /dev/shm} (or the temp directory where there is none). */
    public ShmTransport()
    {
        this(defaultDirectory(), DEFAULT_CAPACITY);
    }

    /**
     * @param directory where sockets and ring files live: a memory-backed file system such as /dev/shm
     * @param capacity bytes per ring and direction, a power of two
     */
    public ShmTransport(final Path directory, final int capacity)
    {
        if (Integer.bitCount(capacity) != 1 || capacity < (64 << 10))
        {
            throw new IllegalArgumentException("shm ring capacity must be a power of two >= 64 KiB, was " + capacity);
        }
        this.directory = directory;
        this.capacity = capacity;
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

    private String checkedName(final XioUri address)
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
        }
        catch (final IOException ex)
        {
            server.close();
            throw new IOException("cannot bind shm portal " + address + " at " + socket + ": " + ex.getMessage(), ex);
        }
        final SelectionKey key = server.register(context.selector(), SelectionKey.OP_ACCEPT,
            (SelectionHandler)selected ->
            {
                SocketChannel channel;
                try
                {
                    while ((channel = server.accept()) != null)
                    {
                        new ServerHandshake(context, channel, name, onAccept).start();
                    }
                }
                catch (final IOException ex)
                {
                    LOG.warn("accept on shm portal {} failed", name, ex);
                }
            });
        return TransportListener.of(address.endpoint(), () ->
        {
            key.cancel();
            closeQuietly(server);
            deleteQuietly(socket);
        });
    }

    /** A portal of this name bound by a live process fails the bind; leftovers of a dead one are removed. */
    private void removeStale(final String name, final Path socket) throws IOException
    {
        if (Files.exists(socket))
        {
            try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(socket)))
            {
                throw new IOException("shm portal '" + name + "' is already bound by a live process (" + socket + ")");
            }
            catch (final IOException ex)
            {
                if (ex.getMessage() != null && ex.getMessage().startsWith("shm portal"))
                {
                    throw ex;
                }
                LOG.info("removing stale shm socket {} ({})", socket, ex.getMessage());
                Files.deleteIfExists(socket);
            }
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
            callback.onFailed(new ConnectionException("cannot connect to " + address.endpoint() + ": " + ex.getMessage()));
            return () -> { };
        }
        final Path socket = socketPath(name);
        final Path ringFile = directory.resolve("xio-" + name + "-" + ProcessHandle.current().pid() + "-" +
            RINGS.incrementAndGet() + ".ring");
        MappedByteBuffer mapping = null;
        SocketChannel channel = null;
        try
        {
            mapping = IoUtil.mapNewFile(ringFile.toFile(), ShmLayout.fileLength(capacity), false);
            final UnsafeBuffer header = new UnsafeBuffer(mapping);
            header.putInt(ShmLayout.CAPACITY_OFFSET, capacity);
            header.putInt(ShmLayout.VERSION_OFFSET, ShmLayout.VERSION);
            header.putIntVolatile(ShmLayout.MAGIC_OFFSET, ShmLayout.MAGIC);
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(socket)); // local: completes at once or fails
            final byte[] path = ringFile.toString().getBytes(StandardCharsets.UTF_8);
            final ByteBuffer hello = ByteBuffer.allocate(2 + path.length);
            hello.putShort((short)path.length).put(path).flip();
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
                closeQuietly(channel);
            }
            if (mapping != null)
            {
                IoUtil.unmap(mapping);
            }
            deleteQuietly(ringFile);
            if (Files.exists(socket) && ex instanceof java.net.ConnectException)
            {
                deleteQuietly(socket); // nobody listens there: a portal that died, as its bind would find
            }
            callback.onFailed(new ConnectionException("cannot connect to " + address.endpoint() + ": " +
                (Files.exists(directory) ? "" : directory + " does not exist; ") + ex.getMessage(), ex));
            return () -> { };
        }
        final MappedByteBuffer mapped = mapping;
        final SocketChannel dialed = channel;
        final ByteBuffer ack = ByteBuffer.allocate(1);
        try
        {
            dialed.register(context.selector(), SelectionKey.OP_READ, (SelectionHandler)key ->
            {
                try
                {
                    final int n = dialed.read(ack);
                    if (n == 0)
                    {
                        return;
                    }
                    key.interestOps(0);
                    deleteQuietly(ringFile);
                    if (n < 0 || ack.get(0) != 1)
                    {
                        throw new IOException("the portal refused the shm connection");
                    }
                }
                catch (final IOException ex)
                {
                    key.cancel();
                    closeQuietly(dialed);
                    IoUtil.unmap(mapped);
                    deleteQuietly(ringFile);
                    callback.onFailed(new ConnectionException("cannot connect to " + address.endpoint() + ": " +
                        ex.getMessage(), ex));
                    return;
                }
                callback.onConnected(new ShmLink(context, mapped, false, dialed, address.endpoint().toString()));
            });
        }
        catch (final IOException ex)
        {
            closeQuietly(dialed);
            IoUtil.unmap(mapped);
            deleteQuietly(ringFile);
            callback.onFailed(new ConnectionException("cannot connect to " + address.endpoint() + ": " +
                ex.getMessage(), ex));
            return () -> { };
        }
        return () ->
        {
            closeQuietly(dialed);
            IoUtil.unmap(mapped);
            deleteQuietly(ringFile);
        };
    }

    /** Reads the client's ring path, maps and deletes the file, acknowledges, then hands over the link. */
    private final class ServerHandshake implements SelectionHandler
    {
        private final TransportContext context;
        private final SocketChannel channel;
        private final String name;
        private final Consumer<TransportLink> onAccept;
        private final ByteBuffer hello = ByteBuffer.allocate(2 + 4096);

        ServerHandshake(final TransportContext context, final SocketChannel channel, final String name,
            final Consumer<TransportLink> onAccept)
        {
            this.context = context;
            this.channel = channel;
            this.name = name;
            this.onAccept = onAccept;
        }

        void start() throws IOException
        {
            channel.configureBlocking(false);
            channel.register(context.selector(), SelectionKey.OP_READ, this);
        }

        @Override
        public void onSelected(final SelectionKey key)
        {
            MappedByteBuffer mapping = null;
            try
            {
                if (channel.read(hello) < 0)
                {
                    throw new IOException("client went away during the handshake");
                }
                if (hello.position() < 2 || hello.position() < 2 + hello.getShort(0))
                {
                    return; // not all of it yet
                }
                final int length = hello.getShort(0);
                if (length <= 0 || length > 4096 || hello.position() != 2 + length)
                {
                    throw new IOException("malformed shm handshake of " + hello.position() + " bytes");
                }
                final Path ring = Path.of(new String(hello.array(), 2, length, StandardCharsets.UTF_8));
                if (!ring.normalize().getParent().equals(directory.normalize()) ||
                    !ring.getFileName().toString().startsWith("xio-" + name + "-"))
                {
                    throw new IOException("shm ring " + ring + " is not one of this portal's");
                }
                mapping = IoUtil.mapExistingFile(ring.toFile(), "xio shm ring");
                Files.deleteIfExists(ring);
                final UnsafeBuffer header = new UnsafeBuffer(mapping);
                final int ringCapacity = header.getInt(ShmLayout.CAPACITY_OFFSET);
                if (header.getIntVolatile(ShmLayout.MAGIC_OFFSET) != ShmLayout.MAGIC ||
                    header.getInt(ShmLayout.VERSION_OFFSET) != ShmLayout.VERSION ||
                    Integer.bitCount(ringCapacity) != 1 ||
                    mapping.capacity() != ShmLayout.fileLength(ringCapacity) ||
                    ringCapacity < RingBufferDescriptor.TRAILER_LENGTH)
                {
                    throw new IOException("shm ring " + ring + " has an unknown layout");
                }
                key.interestOps(0);
                final ByteBuffer ok = ByteBuffer.wrap(new byte[] {1});
                channel.write(ok);
                if (ok.hasRemaining())
                {
                    throw new IOException("could not acknowledge the shm handshake");
                }
            }
            catch (final IOException | RuntimeException ex)
            {
                LOG.warn("shm handshake on portal {} failed: {}", name, ex.toString());
                key.cancel();
                closeQuietly(channel);
                if (mapping != null)
                {
                    IoUtil.unmap(mapping);
                }
                return;
            }
            onAccept.accept(new ShmLink(context, mapping, true, channel, "shm://client@" + name));
        }
    }

    private static void closeQuietly(final java.io.Closeable closeable)
    {
        try
        {
            closeable.close();
        }
        catch (final IOException ignore)
        {
            // closing after a failure; the failure is what gets reported
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
