package io.xio.zookeeper;

import io.xio.cluster.Endpoint;
import io.xio.cluster.EndpointRegistry;
import io.xio.cluster.EndpointResolver;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEventType;
import org.apache.curator.framework.api.CuratorListener;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.TreeCache;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.PathUtils;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A service's endpoints kept in ZooKeeper, through a {@link CuratorFramework} the application builds, starts and
 * closes (this class never closes it). Each registered endpoint is one EPHEMERAL znode
 * {@code <root>/<service>/<endpoint id>} whose data lists its host identity, portals and metadata (a small versioned
 * text format), so an instance whose ZooKeeper session ends, by a clean shutdown or a crash, leaves the set by
 * itself. A crash is noticed after the client's session timeout: keep it short (a few seconds) for servers.
 *
 * <p>Registration uses Curator's {@link PersistentNode}: the node survives reconnects and is created again after its
 * session expired. A watch reads the service's children (and nothing deeper) through a one-level
 * {@link TreeCache} and reports the whole set to its listener after every change, on this resolver's one event
 * thread, so never concurrently, and an unchanged set not again. While the connection is suspended or lost the
 * listener hears {@link Listener#onError} and no set: the last one stands; once reconnected it hears the set as
 * rebuilt, also when it did not change. Nodes whose data cannot be read (too large, not UTF-8, not of the format)
 * are skipped with a warning at most once a minute per watch; the others still count.
 *
 * <p>Thread-safe; {@link #close()} stops the watches, deregisters what is still registered and ends the event thread.
 * Closing the client first ends the registrations (its session takes the nodes) and the watches (with an error).
 */
public final class ZooKeeperEndpoints implements EndpointResolver, EndpointRegistry
{
    /** Where services live unless the application names another root. */
    public static final String DEFAULT_ROOT = "/xio/services";

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperEndpoints.class);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final CuratorFramework client;
    private final String root;
    private final ScheduledThreadPoolExecutor events;
    private final Set<ServiceWatch> watches = ConcurrentHashMap.newKeySet();
    private final Map<String, ZooKeeperRegistration> registrations = new ConcurrentHashMap<>();
    private final CuratorListener clientClosing = (c, event) ->
    {
        if (event.getType() == CuratorEventType.CLOSING)
        {
            clientClosing();
        }
    };
    private volatile Thread eventThread;
    private volatile boolean closed;

    /** Endpoints under {@link #DEFAULT_ROOT}. */
    public ZooKeeperEndpoints(final CuratorFramework client)
    {
        this(client, DEFAULT_ROOT);
    }

    /**
     * Endpoints under {@code root}, an absolute ZooKeeper path (created when missing).
     *
     * @throws IllegalArgumentException naming the root when it is no valid path
     */
    public ZooKeeperEndpoints(final CuratorFramework client, final String root)
    {
        this.client = Objects.requireNonNull(client, "client");
        try
        {
            this.root = PathUtils.validatePath(Objects.requireNonNull(root, "root"));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("ZooKeeper root '" + root + "' is no valid path: " + ex.getMessage(),
                ex);
        }
        final String name = "xio-zookeeper-" + INSTANCES.incrementAndGet();
        events = new ScheduledThreadPoolExecutor(1, task ->
        {
            final Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            eventThread = thread;
            return thread;
        });
        events.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        client.getCuratorListenable().addListener(clientClosing);
    }

    /** The root under which each service is one node. */
    public String root()
    {
        return root;
    }

    /** The node whose children are {@code service}'s endpoints. */
    public String servicePath(final String service)
    {
        return ZKPaths.makePath(root, nodeName(service, "service name"));
    }

    /**
     * Registers {@code endpoint} as {@code <root>/<service>/<endpoint id>}; returns at once, Curator creates the node
     * in the background (and again whenever it vanishes while registered).
     *
     * @throws IllegalArgumentException when the service name or endpoint id cannot be a node name, or the endpoint
     *                                  cannot be written in the node format (line breaks, over 64 KiB)
     * @throws IllegalStateException when this endpoint id is registered for the service already
     */
    @Override
    public ZooKeeperRegistration register(final String service, final Endpoint endpoint)
    {
        ensureOpen();
        final String path = ZKPaths.makePath(servicePath(service), nodeName(endpoint.id(), "endpoint id"));
        final byte[] data = EndpointCodec.encode(endpoint);
        final PersistentNode node = new PersistentNode(client, CreateMode.EPHEMERAL, false, path, data);
        final ZooKeeperRegistration registration = new ZooKeeperRegistration(endpoint, path, node);
        if (registrations.putIfAbsent(path, registration) != null)
        {
            throw new IllegalStateException("endpoint " + endpoint.id() + " of " + service + " is registered already");
        }
        node.start();
        return registration;
    }

    @Override
    public Watch watch(final String service, final Listener listener)
    {
        ensureOpen();
        final ServiceWatch watch = new ServiceWatch(servicePath(service), Objects.requireNonNull(listener, "listener"));
        watches.add(watch);
        watch.start();
        return watch;
    }

    /** The nodes the watches of {@code service} hold in their caches, for tests. */
    int cachedNodes(final String service)
    {
        final String path = servicePath(service);
        return watches.stream().filter(w -> w.path.equals(path)).mapToInt(ServiceWatch::cachedNodes).sum();
    }

    /**
     * Stops every watch, deletes every registration's node (each waiting, while ZooKeeper is down, as long as the
     * client's retry policy lets it) and ends the event thread; the client stays open.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        client.getCuratorListenable().removeListener(clientClosing);
        for (final ServiceWatch watch : List.copyOf(watches))
        {
            watch.close();
        }
        for (final ZooKeeperRegistration registration : List.copyOf(registrations.values()))
        {
            registration.close();
        }
        events.shutdown();
        if (Thread.currentThread() != eventThread)
        {
            try
            {
                if (!events.awaitTermination(5, TimeUnit.SECONDS))
                {
                    LOG.warn("A listener of ZooKeeper endpoints under {} is still running after 5 s", root);
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The application closed the client first (its session and our nodes end with it): the registrations stop, or
     * Curator's PersistentNode would try to create its node again on the closed client, each failure calling the
     * next; the watches stop with a last error, their set standing.
     */
    private void clientClosing()
    {
        for (final ZooKeeperRegistration registration : List.copyOf(registrations.values()))
        {
            registration.abandon();
        }
        for (final ServiceWatch watch : List.copyOf(watches))
        {
            watch.clientClosed();
        }
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("ZooKeeper endpoints under " + root + " are closed");
        }
    }

    private void post(final Runnable task)
    {
        try
        {
            events.execute(task);
        }
        catch (final RejectedExecutionException ex)
        {
            // Closed: nothing is reported any more.
        }
    }

    private static String nodeName(final String name, final String what)
    {
        if (name == null || name.isEmpty() || name.indexOf('/') >= 0 || ".".equals(name) || "..".equals(name))
        {
            throw new IllegalArgumentException(what + " '" + name + "' cannot be a ZooKeeper node name");
        }
        try
        {
            PathUtils.validatePath("/" + name);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(what + " '" + name + "' cannot be a ZooKeeper node name: " +
                ex.getMessage(), ex);
        }
        return name;
    }

    /**
     * One endpoint's registration: its node exists while the registration is open and the client has a session.
     * Thread-safe.
     */
    public final class ZooKeeperRegistration implements Registration
    {
        private final Endpoint endpoint;
        private final String path;
        private final PersistentNode node;
        private final AtomicBoolean open = new AtomicBoolean(true);

        private ZooKeeperRegistration(final Endpoint endpoint, final String path, final PersistentNode node)
        {
            this.endpoint = endpoint;
            this.path = path;
            this.node = node;
        }

        @Override
        public Endpoint endpoint()
        {
            return endpoint;
        }

        /** The endpoint's node. */
        public String path()
        {
            return path;
        }

        /**
         * Waits up to {@code timeout} for the node's first creation, e.g. before a server reports itself ready.
         *
         * @return whether the node was created
         */
        public boolean awaitRegistered(final Duration timeout) throws InterruptedException
        {
            return open.get() && node.waitForInitialCreate(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }

        /** Stops the node, which its closing client's session takes along. */
        private void abandon()
        {
            if (open.compareAndSet(true, false))
            {
                registrations.remove(path, this);
                try
                {
                    node.close();
                }
                catch (final IOException | RuntimeException ex)
                {
                    LOG.debug("{} goes with the closing client's session", path, ex);
                }
            }
        }

        /**
         * Deletes the node and stops re-creating it. Deleting waits for ZooKeeper as the client's retry policy lets
         * it, so while ZooKeeper cannot be reached this blocks for that long; Curator then deletes the node once it
         * can, and the node ends with the session anyway.
         */
        @Override
        public void close()
        {
            if (!open.compareAndSet(true, false))
            {
                return;
            }
            registrations.remove(path, this);
            try
            {
                node.close();
            }
            catch (final IOException | RuntimeException ex)
            {
                LOG.warn("Could not delete {} from ZooKeeper now ({}); it goes when ZooKeeper is back or the " +
                    "session ends", path, String.valueOf(ex.getCause() != null ? ex.getCause() : ex));
            }
        }
    }

    /**
     * One service's watch. Its state is the event thread's, but for {@link #closed}. A {@link TreeCache} one level
     * deep holds the service's children and nothing under them: {@code CuratorCache} would cache and watch the whole
     * subtree, so anyone who may write under the service path could make every client hold a tree of any size.
     * TreeCache is deprecated in favour of CuratorCache, which has no depth bound (its filters choose the events,
     * not what it reads and keeps).
     */
    @SuppressWarnings("deprecation")
    private final class ServiceWatch implements Watch
    {
        private final String path;
        private final Listener listener;
        private final TreeCache cache;
        private final ConnectionStateListener connectionListener = (c, state) -> connectionChanged(state);
        private volatile boolean closed;

        private boolean initialized;
        private boolean refreshQueued;
        /** Report the next set even when it equals the last: the first one, and the set rebuilt after an outage. */
        private boolean reportNext = true;
        private List<Endpoint> reported;
        private Map<String, Parsed> parsed = new HashMap<>();
        private long nextWarnAt = System.nanoTime();
        private int unwarned;

        ServiceWatch(final String path, final Listener listener)
        {
            this.path = path;
            this.listener = listener;
            cache = TreeCache.newBuilder(client, path).setMaxDepth(1).build();
        }

        void start()
        {
            cache.getListenable().addListener((c, event) ->
            {
                switch (event.getType())
                {
                    case INITIALIZED -> initialized();
                    case NODE_ADDED, NODE_UPDATED, NODE_REMOVED -> changed();
                    default ->
                    {
                        // The connection's states: connectionListener hears them.
                    }
                }
            }, events);
            cache.getUnhandledErrorListenable().addListener((message, e) -> cacheFailed(e));
            client.getConnectionStateListenable().addListener(connectionListener, events);
            createPath();
            try
            {
                cache.start();
            }
            catch (final Exception ex)
            {
                cacheFailed(ex);
            }
            // A client that never connects changes no state: without this the listener would hear nothing at all.
            try
            {
                events.schedule(this::unreachedAtStart, client.getZookeeperClient().getConnectionTimeoutMs(),
                    TimeUnit.MILLISECONDS);
            }
            catch (final RejectedExecutionException ex)
            {
                // Closed meanwhile.
            }
        }

        @Override
        public void close()
        {
            if (closed)
            {
                return;
            }
            closed = true;
            watches.remove(this);
            client.getConnectionStateListenable().removeListener(connectionListener);
            cache.close();
        }

        private void clientClosed()
        {
            post(() -> error(new IllegalStateException("the ZooKeeper client closed; " + path + " is not watched " +
                "any more")));
            post(this::close);
        }

        /** The service node, so that operators see the service; the cache also works while it is missing. */
        private void createPath()
        {
            try
            {
                client.create().creatingParentContainersIfNeeded().withMode(CreateMode.CONTAINER)
                    .inBackground((c, event) ->
                    {
                        final KeeperException.Code rc = KeeperException.Code.get(event.getResultCode());
                        if (rc != KeeperException.Code.OK && rc != KeeperException.Code.NODEEXISTS)
                        {
                            LOG.debug("Could not create {}: {}", path, rc);
                        }
                    })
                    .forPath(path);
            }
            catch (final Exception ex)
            {
                LOG.debug("Could not create {}", path, ex);
            }
        }

        private void unreachedAtStart()
        {
            if (!initialized && !closed && !client.getZookeeperClient().isConnected())
            {
                error(KeeperException.create(KeeperException.Code.CONNECTIONLOSS, path));
            }
        }

        private void initialized()
        {
            initialized = true;
            reread();
        }

        /** Coalesces a burst of cache events (a rebuild, many joins) into one report after them. */
        private void changed()
        {
            if (initialized && !refreshQueued)
            {
                refreshQueued = true;
                post(this::reread);
            }
        }

        private void reread()
        {
            refreshQueued = false;
            if (closed || !initialized)
            {
                return;
            }
            final Map<String, Parsed> now = new HashMap<>();
            final List<Endpoint> endpoints = new ArrayList<>();
            children().forEach((id, data) ->
            {
                if (data.getStat() == null)
                {
                    return;
                }
                Parsed entry = parsed.get(data.getPath());
                if (entry == null || entry.mzxid != data.getStat().getMzxid())
                {
                    entry = parse(id, data);
                }
                now.put(data.getPath(), entry);
                if (entry.endpoint != null)
                {
                    endpoints.add(entry.endpoint);
                }
            });
            parsed = now;
            endpoints.sort(Comparator.comparing(Endpoint::id));
            final List<Endpoint> set = List.copyOf(endpoints);
            if (!reportNext && set.equals(reported))
            {
                return;
            }
            reportNext = false;
            reported = set;
            try
            {
                listener.onEndpoints(set);
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("A listener of {} failed on {} endpoints", path, set.size(), ex);
            }
        }

        private Parsed parse(final String id, final ChildData data)
        {
            final long mzxid = data.getStat().getMzxid();
            try
            {
                return new Parsed(mzxid, EndpointCodec.decode(id, data.getData()));
            }
            catch (final IllegalArgumentException ex)
            {
                final long now = System.nanoTime();
                if (now - nextWarnAt >= 0)
                {
                    nextWarnAt = now + WARN_INTERVAL_NANOS;
                    LOG.warn("Skipping ZooKeeper node {}: {}{}", data.getPath(), ex.getMessage(),
                        unwarned == 0 ? "" : " (and " + unwarned + " other malformed nodes since the last warning)");
                    unwarned = 0;
                }
                else
                {
                    unwarned++;
                    LOG.debug("Skipping ZooKeeper node {}: {}", data.getPath(), ex.getMessage());
                }
                return new Parsed(mzxid, null);
            }
        }

        private void connectionChanged(final ConnectionState state)
        {
            if (closed)
            {
                return;
            }
            switch (state)
            {
                case SUSPENDED -> error(KeeperException.create(KeeperException.Code.CONNECTIONLOSS, path));
                case LOST -> error(KeeperException.create(KeeperException.Code.SESSIONEXPIRED, path));
                case RECONNECTED -> verify();
                default ->
                {
                }
            }
        }

        /**
         * After a reconnect the cache rebuilds itself, reporting only what changed; this reads the children once
         * more so that the set is reported also when nothing did, as soon as the cache agrees with ZooKeeper.
         */
        private void verify()
        {
            try
            {
                client.getChildren().inBackground((c, event) ->
                {
                    final int rc = event.getResultCode();
                    final List<String> children = rc == KeeperException.Code.OK.intValue() ? event.getChildren()
                        : rc == KeeperException.Code.NONODE.intValue() ? List.of() : null;
                    if (children != null)
                    {
                        post(() -> verified(new HashSet<>(children)));
                    }
                }).forPath(path);
            }
            catch (final Exception ex)
            {
                LOG.debug("Could not read the children of {}", path, ex);
            }
        }

        private void verified(final Set<String> children)
        {
            if (closed || !initialized || !reportNext)
            {
                return;
            }
            if (children().keySet().equals(children))
            {
                reread();
            }
            // Else the cache has not caught up yet: its own events bring the set.
        }

        /** The service's children as the cache holds them, by id. */
        private Map<String, ChildData> children()
        {
            final Map<String, ChildData> children = cache.getCurrentChildren(path);
            return children == null ? Map.of() : children;
        }

        /** The nodes the cache holds: the service node and its children, never what lies under them. */
        int cachedNodes()
        {
            return cache.size();
        }

        private void cacheFailed(final Throwable ex)
        {
            if (ex instanceof KeeperException.ConnectionLossException ||
                ex instanceof KeeperException.SessionExpiredException)
            {
                LOG.debug("Reading {} failed; the connection's state reports it", path, ex);
                return;
            }
            post(() -> error(ex));
        }

        private void error(final Throwable cause)
        {
            if (closed)
            {
                return;
            }
            reportNext = true;
            try
            {
                listener.onError(cause);
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("A listener of {} failed on an error", path, ex);
            }
        }
    }

    /** One node's data as last read: the endpoint, or null when it was malformed. */
    private record Parsed(long mzxid, Endpoint endpoint)
    {
    }
}
