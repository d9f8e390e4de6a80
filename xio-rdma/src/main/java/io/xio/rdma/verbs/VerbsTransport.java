package io.xio.rdma.verbs;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent.EventType;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.RdmaVerbs;
import io.xio.engine.ConnectionException;
import io.xio.engine.XioUri;
import io.xio.engine.transport.AddressInUseException;
import io.xio.engine.transport.Transport;
import io.xio.engine.transport.TransportContext;
import io.xio.engine.transport.TransportLink;
import io.xio.engine.transport.TransportListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The verbs side of the {@code rdma} transport, loaded by {@code DisniClassLoader}: rdma_cm steps driven
 * by its events on the owning context (never DiSNI's blocking endpoint API), each with a timeout, and
 * {@link VerbsLink}s over per-context {@link ContextVerbs}. One instance per process. Thread-safe.
 */
public final class VerbsTransport implements Transport
{
    private static final Logger LOG = LoggerFactory.getLogger(VerbsTransport.class);
    private static final int RESOLVE_MILLIS = 2_000;
    private static final long STEP_TIMEOUT_NANOS = 10_000_000_000L;
    private static final int BACKLOG = 128;
    private static final byte RETRIES = 7;
    private static final byte RNR_RETRIES = 7;
    private static final int ADDR_RESOLVED = EventType.RDMA_CM_EVENT_ADDR_RESOLVED.ordinal();
    private static final int ROUTE_RESOLVED = EventType.RDMA_CM_EVENT_ROUTE_RESOLVED.ordinal();
    private static final int ESTABLISHED = EventType.RDMA_CM_EVENT_ESTABLISHED.ordinal();
    private static final int TIMEWAIT_EXIT = EventType.RDMA_CM_EVENT_TIMEWAIT_EXIT.ordinal();

    private final CmEvents events = new CmEvents();
    private final Map<TransportContext, ContextVerbs> contexts = new ConcurrentHashMap<>();

    /** Opens DiSNI, which loads libdisni and checks its version and struct layouts against ours. */
    public VerbsTransport() throws IOException
    {
        RdmaCm.open();
        RdmaVerbs.open();
    }

    @Override
    public String scheme()
    {
        return "rdma";
    }

    @Override
    public TransportListener listen(final XioUri address, final TransportContext context,
        final Consumer<TransportLink> onAccept) throws IOException
    {
        final RdmaEventChannel channel = events.acquire();
        RdmaCmId id = null;
        boolean addressBound = false;
        try
        {
            id = channel.createId(RdmaCm.RDMA_PS_TCP);
            id.bindAddr(new InetSocketAddress(address.host(), Math.max(0, address.port())));
            addressBound = true;
            id.listen(BACKLOG);
            final int port = ((InetSocketAddress)id.getSource()).getPort();
            final XioUri bound = address.endpoint().withPort(port);
            final RdmaCmId listening = id;
            events.register(id, (type, connection) -> context.execute(() ->
            {
                if (type == CmEvents.CONNECT_REQUEST)
                {
                    new Acceptance(context, connection, onAccept).start();
                }
            }));
            return TransportListener.of(bound, () ->
            {
                events.unregister(listening);
                destroy(listening);
            });
        }
        catch (final IOException | RuntimeException ex)
        {
            if (id != null)
            {
                destroy(id);
            }
            else
            {
                events.release();
            }
            // rdma_cm reports no errno: a port that fails where port 0 binds on the same address is taken.
            if (!addressBound && address.port() > 0 && bindsAtSomePort(address.host()))
            {
                throw new AddressInUseException("cannot bind " + address + ": its port is in use (" +
                    ex.getMessage() + ")");
            }
            throw new IOException("cannot bind " + address + ": " + ex.getMessage() +
                " (an rdma portal needs the IP address of an RDMA-capable interface)", ex);
        }
    }

    /** Whether an rdma_cm id binds at {@code host} on a port of the system's choosing. */
    private boolean bindsAtSomePort(final String host)
    {
        final RdmaEventChannel channel;
        try
        {
            channel = events.acquire();
        }
        catch (final IOException ex)
        {
            return false;
        }
        RdmaCmId probe = null;
        try
        {
            probe = channel.createId(RdmaCm.RDMA_PS_TCP);
            probe.bindAddr(new InetSocketAddress(host, 0));
            return true;
        }
        catch (final IOException | RuntimeException ex)
        {
            return false;
        }
        finally
        {
            if (probe != null)
            {
                destroy(probe);
            }
            else
            {
                events.release();
            }
        }
    }

    @Override
    public Runnable connect(final XioUri address, final TransportContext context, final ConnectCallback callback)
    {
        final Connection connection = new Connection(address, context, callback);
        connection.start();
        return connection::abort;
    }

    void forget(final RdmaCmId id)
    {
        events.unregister(id);
    }

    void released()
    {
        events.release();
    }

    private void destroy(final RdmaCmId id)
    {
        try
        {
            id.destroyId();
        }
        catch (final IOException ex)
        {
            LOG.warn("cannot destroy an rdma_cm id", ex);
        }
        events.release();
    }

    private ContextVerbs verbs(final TransportContext context, final IbvContext device) throws IOException
    {
        if (device == null)
        {
            throw new IOException("the rdma_cm id has no device");
        }
        final ContextVerbs existing = contexts.get(context);
        if (existing != null)
        {
            if (existing.device().getCmd_fd() != device.getCmd_fd())
            {
                throw new IOException("context " + context.name() + " already uses another RDMA device; one " +
                    "device per context is supported");
            }
            return existing;
        }
        final ContextVerbs created = new ContextVerbs(context, device, contexts);
        contexts.put(context, created);
        return created;
    }

    private static RdmaConnParam parameters() throws IOException
    {
        final RdmaConnParam parameters = new RdmaConnParam();
        parameters.setRetry_count(RETRIES);
        parameters.setRnr_retry_count(RNR_RETRIES);
        return parameters;
    }

    private static String address(final RdmaCmId id)
    {
        try
        {
            final InetSocketAddress peer = (InetSocketAddress)id.getDestination();
            return "rdma://" + peer.getAddress().getHostAddress() + ":" + peer.getPort();
        }
        catch (final IOException | RuntimeException ex)
        {
            return "rdma://(unknown)";
        }
    }

    /** Events of an established link: any of them but TIMEWAIT_EXIT ends it. */
    private void watch(final RdmaCmId id, final VerbsLink link, final TransportContext context)
    {
        events.register(id, (type, ignored) ->
        {
            if (type != TIMEWAIT_EXIT)
            {
                context.execute(() -> link.disconnected(CmEvents.name(type)));
            }
        });
    }

    /** A client's attempt: resolve address, resolve route, connect, each step bounded. Context thread. */
    private final class Connection
    {
        private final XioUri address;
        private final TransportContext context;
        private final ConnectCallback callback;
        private RdmaCmId id;
        private VerbsLink link;
        private ContextVerbs held;
        private long timer = -1;
        private String step = "starting";
        private boolean done;

        Connection(final XioUri address, final TransportContext context, final ConnectCallback callback)
        {
            this.address = address;
            this.context = context;
            this.callback = callback;
        }

        void start()
        {
            try
            {
                final RdmaEventChannel channel = events.acquire();
                try
                {
                    id = channel.createId(RdmaCm.RDMA_PS_TCP);
                }
                catch (final IOException | RuntimeException ex)
                {
                    events.release();
                    throw ex;
                }
                events.register(id, (type, ignored) -> context.execute(() -> onEvent(type)));
                step = "resolving the address";
                arm();
                id.resolveAddr(null, new InetSocketAddress(address.host(), address.port()), RESOLVE_MILLIS);
            }
            catch (final IOException | RuntimeException ex)
            {
                fail(ex.getMessage(), ex);
            }
        }

        private void arm()
        {
            context.cancelTimer(timer);
            final String waitingFor = step;
            timer = context.schedule(context.nanoTime() + STEP_TIMEOUT_NANOS, () ->
            {
                timer = -1;
                fail("timed out " + waitingFor, null);
            });
        }

        void onEvent(final int type)
        {
            if (done)
            {
                return;
            }
            try
            {
                if (type == ADDR_RESOLVED)
                {
                    step = "resolving the route";
                    arm();
                    id.resolveRoute(RESOLVE_MILLIS);
                }
                else if (type == ROUTE_RESOLVED)
                {
                    step = "connecting";
                    arm();
                    held = verbs(context, id.getVerbs());
                    held.hold();
                    link = DisniQueuePair.createLink(context, VerbsTransport.this, held, id,
                        address.endpoint().toString());
                    id.connect(parameters());
                }
                else if (type == ESTABLISHED)
                {
                    done = true;
                    context.cancelTimer(timer);
                    held.unhold();
                    held = null;
                    watch(id, link, context);
                    link.established();
                    callback.onConnected(link);
                }
                else
                {
                    fail("rdma_cm reported " + CmEvents.name(type) + " while " + step +
                        (type == EventType.RDMA_CM_EVENT_REJECTED.ordinal() ? " (nothing listens there?)" : ""), null);
                }
            }
            catch (final IOException | RuntimeException ex)
            {
                fail(ex.getMessage() + " while " + step, ex);
            }
        }

        private void fail(final String why, final Throwable cause)
        {
            if (done)
            {
                return;
            }
            abort();
            callback.onFailed(new ConnectionException("cannot connect to " + address.endpoint() + ": " + why, cause));
        }

        void abort()
        {
            if (done && link == null)
            {
                return;
            }
            if (done)
            {
                return; // connected: the link owns everything now
            }
            done = true;
            context.cancelTimer(timer);
            releaseAll();
        }

        private void releaseAll()
        {
            if (link != null)
            {
                link.close(null); // destroys the queue pair and the id
                link = null;
            }
            else if (id != null)
            {
                events.unregister(id);
                destroy(id);
            }
            id = null;
            if (held != null)
            {
                held.unhold();
                held = null;
            }
        }
    }

    /** A server's side of one connect request: queue pair and receives first, then accept. Context thread. */
    private final class Acceptance
    {
        private final TransportContext context;
        private final RdmaCmId id;
        private final Consumer<TransportLink> onAccept;
        private VerbsLink link;
        private long timer = -1;
        private boolean done;

        Acceptance(final TransportContext context, final RdmaCmId id, final Consumer<TransportLink> onAccept)
        {
            this.context = context;
            this.id = id;
            this.onAccept = onAccept;
        }

        void start()
        {
            try
            {
                events.acquire(); // the new id is one more user of the channel
            }
            catch (final IOException ex)
            {
                LOG.warn("rdma connect request dropped", ex);
                return;
            }
            try
            {
                final ContextVerbs verbs = verbs(context, id.getVerbs());
                verbs.hold(); // so that a failure below still releases a context's fresh verbs
                try
                {
                    link = DisniQueuePair.createLink(context, VerbsTransport.this, verbs, id, address(id));
                }
                finally
                {
                    verbs.unhold();
                }
                events.register(id, (type, ignored) -> context.execute(() -> onEvent(type)));
                timer = context.schedule(context.nanoTime() + STEP_TIMEOUT_NANOS, () ->
                {
                    timer = -1;
                    fail("the client did not complete the connection in time");
                });
                id.accept(parameters());
            }
            catch (final IOException | RuntimeException ex)
            {
                fail(ex.toString());
            }
        }

        void onEvent(final int type)
        {
            if (done)
            {
                return;
            }
            if (type == ESTABLISHED)
            {
                done = true;
                context.cancelTimer(timer);
                watch(id, link, context);
                link.established();
                onAccept.accept(link);
            }
            else
            {
                fail("rdma_cm reported " + CmEvents.name(type));
            }
        }

        private void fail(final String why)
        {
            if (done)
            {
                return;
            }
            done = true;
            context.cancelTimer(timer);
            LOG.warn("rdma connection from {} not accepted: {}", address(id), why);
            if (link != null)
            {
                link.close(null);
            }
            else
            {
                events.unregister(id);
                destroy(id);
            }
        }
    }
}
