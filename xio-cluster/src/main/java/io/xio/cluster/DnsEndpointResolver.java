package io.xio.cluster;

import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.Security;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Endpoints of DNS names, with no coordinator: a watched {@link DnsTarget} ({@code dns:///kv.prod.svc:7000}) gives
 * one endpoint per address its name resolves to, each with one portal of the target's transport and port. A
 * Kubernetes headless service answers with one address per ready pod, so a {@link ServiceClient} over it spreads
 * calls over every pod and follows them as they come and go; a ClusterIP service answers with one virtual address,
 * behind which every session stays with the pod its connection first reached.
 *
 * <p>Each name is looked up when first watched, then every {@link Builder#refreshInterval refresh interval}, and
 * sooner when a watcher asks ({@link Watch#refresh()}: its client lost a connection or could not reach an address),
 * but never sooner than the {@link Builder#minRefreshInterval minimum interval} after the last lookup, however many
 * clients ask, so a failing fleet cannot hammer DNS. Watchers hear a set when it changed, and a watcher that has not
 * heard the current set yet (it joined after a failed lookup) hears it on the next lookup. A lookup that fails,
 * finds no address or more than {@link Builder#maxAddresses the bound} is reported to {@code onError} and the last
 * set stands (a name missing for a moment drains no pod). Of a name with addresses of both families (A and AAAA
 * records, {@code localhost}) one family is taken, so that a pod is not two endpoints ({@link AddressFamily}).
 *
 * <p>The default lookup is the JDK's ({@link InetAddress#getAllByName}), which caches answers: for
 * {@code networkaddress.cache.ttl} seconds (a security property; 30 s when unset, or the system property
 * {@code sun.net.inetaddr.ttl}), and failures for {@code networkaddress.cache.negative.ttl} (10 s). A lookup sooner
 * than that sees the cached answer, an early one (after a lost connection) included, so on Kubernetes set
 * {@code networkaddress.cache.ttl} at most to the minimum refresh interval (5 s matches CoreDNS's own TTL), e.g.
 * {@code -Dsun.net.inetaddr.ttl=5}; the resolver logs a warning when the cache's TTL is longer than that interval.
 *
 * <p>Thread-safe: lookups and every watcher's reports run on the resolver's own thread (one per resolver, lookups of
 * different names one after the other), so a watcher hears its reports one at a time, and none after its watch or
 * the resolver is closed.
 */
public final class DnsEndpointResolver implements EndpointResolver
{
    private static final Logger LOG = LoggerFactory.getLogger(DnsEndpointResolver.class);

    /** Looks a host name up. */
    @FunctionalInterface
    public interface Lookup
    {
        /** The JDK's: {@link InetAddress#getAllByName}, through its cache and the system's resolver. */
        Lookup JDK = host -> Arrays.asList(InetAddress.getAllByName(host));

        /**
         * Every address of {@code host}, any order, repeats allowed.
         *
         * @throws UnknownHostException when the name has no address or cannot be resolved now
         */
        List<InetAddress> addresses(String host) throws UnknownHostException;
    }

    /** Which addresses of a name become endpoints. */
    public enum AddressFamily
    {
        /** The IPv4 addresses; those of IPv6 only when the name has no IPv4 address. */
        IPV4,
        /** The IPv6 addresses; those of IPv4 only when the name has no IPv6 address. */
        IPV6,
        /** Every address: a host with both is two endpoints, one of which may not be reachable. */
        BOTH;

        /** The JVM's preference: {@link #IPV6} when {@code java.net.preferIPv6Addresses} is true, else IPv4. */
        public static AddressFamily preferred()
        {
            return Boolean.parseBoolean(System.getProperty("java.net.preferIPv6Addresses")) ? IPV6 : IPV4;
        }

        /** The addresses of {@code distinct} this family takes, in order. */
        List<InetAddress> select(final Set<InetAddress> distinct)
        {
            if (this == BOTH)
            {
                return List.copyOf(distinct);
            }
            final List<InetAddress> preferred = new ArrayList<>(distinct.size());
            for (final InetAddress address : distinct)
            {
                if (address instanceof Inet6Address == (this == IPV6))
                {
                    preferred.add(address);
                }
            }
            return preferred.isEmpty() ? List.copyOf(distinct) : preferred;
        }
    }

    private final Lookup lookup;
    private final long periodNanos;
    private final long minIntervalNanos;
    private final int maxAddresses;
    private final AddressFamily family;
    private final NanoClock clock;
    private final ClientThread thread;
    private final Object lock = new Object();
    /** Watched names by {@link DnsTarget#service()}; guarded by {@link #lock}. */
    private final Map<String, Name> names = new HashMap<>();
    private boolean closed;

    DnsEndpointResolver(final Builder builder, final NanoClock clock, final ClientThread thread)
    {
        this.lookup = builder.lookup;
        this.periodNanos = builder.refreshInterval.toNanos();
        this.minIntervalNanos = builder.minRefreshInterval.toNanos();
        this.maxAddresses = builder.maxAddresses;
        this.family = builder.family != null ? builder.family : AddressFamily.preferred();
        this.clock = clock;
        this.thread = thread;
        if (lookup == Lookup.JDK)
        {
            final String warning = staleCacheWarning(jdkCacheSeconds(), minIntervalNanos);
            if (warning != null)
            {
                LOG.warn(warning);
            }
        }
    }

    /**
     * A resolver with the defaults: the JDK's lookup, every 30 s, at most every 5 s when asked, 256 addresses, the
     * JVM's preferred address family.
     */
    public static DnsEndpointResolver create()
    {
        return builder().build();
    }

    /** A builder with the defaults of {@link #create()}, to change some of them; any thread. */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * Watches {@code service}, a {@link DnsTarget} URI ({@code dns:///host:port}; a resource after the port is
     * ignored): its first lookup starts now, or, for a name watched already, the set known is reported soon.
     *
     * @throws IllegalArgumentException when {@code service} is no DNS target
     */
    @Override
    public Watch watch(final String service, final Listener listener)
    {
        final DnsTarget target = DnsTarget.parse(service);
        final String key = target.service();
        final Name name;
        synchronized (lock)
        {
            if (closed)
            {
                throw new IllegalStateException("the DNS resolver is closed");
            }
            final Name known = names.get(key);
            name = known != null ? known : new Name(target);
            name.listeners.add(listener);
            if (known == null)
            {
                names.put(key, name);
                plan(name, clock.nanoTime());
            }
            else
            {
                thread.execute(() -> greet(name, listener));
            }
        }
        return new Watch()
        {
            @Override
            public void refresh()
            {
                synchronized (lock)
                {
                    if (names.get(key) == name)
                    {
                        plan(name, Math.max(clock.nanoTime(), name.lastLookupAt + minIntervalNanos));
                    }
                }
            }

            @Override
            public void close()
            {
                synchronized (lock)
                {
                    name.listeners.remove(listener);
                    if (name.listeners.isEmpty() && names.get(key) == name)
                    {
                        names.remove(key);
                        name.plan++; // drops the lookup planned
                    }
                }
            }
        };
    }

    /** Stops every lookup; watchers hear nothing more, not even from a lookup running now. */
    @Override
    public void close()
    {
        synchronized (lock)
        {
            closed = true;
            names.clear();
        }
        thread.shutdown();
    }

    /** Plans {@code name}'s next lookup at {@code at}, unless one is planned no later. Under the lock. */
    private void plan(final Name name, final long at)
    {
        if (name.planned && name.plannedAt <= at)
        {
            return;
        }
        name.planned = true;
        name.plannedAt = at;
        final long plan = ++name.plan;
        thread.schedule(at - clock.nanoTime(), () -> lookUp(name, plan));
    }

    /** Runs on the resolver's thread; whatever the lookup or a watcher throws, the name's next lookup is planned. */
    private void lookUp(final Name name, final long plan)
    {
        final List<Listener> listeners;
        synchronized (lock)
        {
            if (name.plan != plan || !watched(name))
            {
                return; // superseded by a sooner plan, or no longer watched
            }
            name.planned = false;
            name.lastLookupAt = clock.nanoTime();
            listeners = List.copyOf(name.listeners);
        }
        try
        {
            report(name, listeners);
        }
        finally
        {
            synchronized (lock)
            {
                if (watched(name))
                {
                    plan(name, name.lastLookupAt + periodNanos); // a refresh asked for meanwhile stays sooner
                }
            }
        }
    }

    /** Looks {@code name} up and tells its watchers: a new set to all, the same set to those that lack it. */
    private void report(final Name name, final List<Listener> listeners)
    {
        List<Endpoint> found = null;
        Throwable failure = null;
        try
        {
            found = endpoints(name.target, lookup.addresses(name.target.host()));
        }
        catch (final Throwable ex)
        {
            failure = ex; // an Error too: reported as a failure, the name stays watched
        }
        name.lastFailure = failure;
        name.current.retainAll(listeners); // forgets those that left
        name.heard.retainAll(listeners);
        if (failure != null)
        {
            for (final Listener listener : listeners)
            {
                tell(name, listener, null, failure);
            }
            return;
        }
        if (!found.equals(name.last))
        {
            name.last = found;
            name.current.clear();
        }
        for (final Listener listener : listeners)
        {
            if (!name.current.contains(listener))
            {
                tell(name, listener, found, null);
            }
        }
    }

    /**
     * Tells a watcher that joined a name watched already the current set and the last lookup's failure, unless a
     * lookup told it something since it joined. On the resolver's thread.
     */
    private void greet(final Name name, final Listener listener)
    {
        if (name.heard.contains(listener))
        {
            return;
        }
        if (name.last != null)
        {
            tell(name, listener, name.last, null);
        }
        if (name.lastFailure != null)
        {
            tell(name, listener, null, name.lastFailure);
        }
    }

    /**
     * Tells {@code listener} a set, or else a failure, if it still watches the name and the resolver is open; one
     * that throws is logged, so that it stops neither the others nor the name's next lookup. On the resolver's
     * thread.
     */
    private void tell(final Name name, final Listener listener, final List<Endpoint> endpoints,
        final Throwable failure)
    {
        synchronized (lock)
        {
            if (!watched(name) || !name.listeners.contains(listener))
            {
                return; // closed while the lookup ran
            }
        }
        name.heard.add(listener);
        try
        {
            if (endpoints != null)
            {
                name.current.add(listener);
                listener.onEndpoints(endpoints);
            }
            else
            {
                listener.onError(failure);
            }
        }
        catch (final Throwable ex)
        {
            LOG.warn("a watcher of {} failed: {}", name.target.service(), ex.toString());
        }
    }

    /** Whether {@code name} is still watched and the resolver open. Under the lock. */
    private boolean watched(final Name name)
    {
        return !closed && names.get(name.target.service()) == name;
    }

    /** The endpoints of {@code addresses}, one per distinct address of the family taken, by id. */
    private List<Endpoint> endpoints(final DnsTarget target, final List<InetAddress> addresses)
        throws UnknownHostException
    {
        final Set<InetAddress> distinct = new LinkedHashSet<>(addresses);
        if (distinct.isEmpty())
        {
            throw new UnknownHostException(target.host() + " has no address");
        }
        final List<InetAddress> taken = family.select(distinct);
        if (taken.size() > maxAddresses)
        {
            throw new UnknownHostException(target.host() + " has " + taken.size() + " addresses, more than the " +
                maxAddresses + " a DNS resolver takes (maxAddresses); the last set stands");
        }
        final List<Endpoint> endpoints = new ArrayList<>(taken.size());
        for (final InetAddress address : taken)
        {
            endpoints.add(Endpoint.of(target.portal(address)));
        }
        endpoints.sort(Comparator.comparing(Endpoint::id));
        return List.copyOf(endpoints);
    }

    /**
     * The warning that the JDK's cache outlives the minimum refresh interval, so that an early lookup (after a lost
     * connection) sees the cached, stale answer; null when it does not.
     */
    static String staleCacheWarning(final long ttlSeconds, final long minIntervalNanos)
    {
        if (ttlSeconds >= 0 && TimeUnit.SECONDS.toNanos(ttlSeconds) <= minIntervalNanos)
        {
            return null;
        }
        return "the JVM caches DNS answers for " + (ttlSeconds < 0 ? "ever" : ttlSeconds + " s") +
            " (networkaddress.cache.ttl), longer than the DNS resolver's minimum refresh interval of " +
            TimeUnit.NANOSECONDS.toMillis(minIntervalNanos) + " ms: a lookup sooner than that after a lost " +
            "connection sees the stale answer, and address changes show up that much later; set " +
            "networkaddress.cache.ttl (or -Dsun.net.inetaddr.ttl) to at most the minimum refresh interval";
    }

    /** The JDK's positive cache TTL in seconds, negative for ever, as {@code InetAddressCachePolicy} reads it. */
    static long jdkCacheSeconds()
    {
        final String security = Security.getProperty("networkaddress.cache.ttl");
        final String configured = security != null ? security : System.getProperty("sun.net.inetaddr.ttl");
        if (configured == null)
        {
            return 30;
        }
        try
        {
            return Long.parseLong(configured.trim());
        }
        catch (final NumberFormatException ex)
        {
            return 30;
        }
    }

    /**
     * A watched name: its watchers and next lookup under the resolver's lock, its last answer and who heard it on
     * the resolver's thread.
     */
    private static final class Name
    {
        final DnsTarget target;
        final List<Listener> listeners = new ArrayList<>();
        long lastLookupAt = Long.MIN_VALUE / 2;
        boolean planned;
        long plannedAt;
        long plan;
        /** The current set, null before the first lookup that found one. */
        List<Endpoint> last;
        /** The last lookup's failure, null after a success. */
        Throwable lastFailure;
        /** The watchers told the current set. */
        final Set<Listener> current = Collections.newSetFromMap(new IdentityHashMap<>());
        /** The watchers told anything (a late one is greeted unless a lookup told it first). */
        final Set<Listener> heard = Collections.newSetFromMap(new IdentityHashMap<>());

        Name(final DnsTarget target)
        {
            this.target = target;
        }
    }

    /** Builds a {@link DnsEndpointResolver}. Not thread-safe. */
    public static final class Builder
    {
        Lookup lookup = Lookup.JDK;
        Duration refreshInterval = Duration.ofSeconds(30);
        Duration minRefreshInterval = Duration.ofSeconds(5);
        int maxAddresses = 256;
        AddressFamily family;

        Builder()
        {
        }

        /** How a name is looked up; default {@link Lookup#JDK}. */
        public Builder lookup(final Lookup value)
        {
            lookup = Objects.requireNonNull(value, "lookup");
            return this;
        }

        /** How often each name is looked up again without being asked; default 30 s. */
        public Builder refreshInterval(final Duration value)
        {
            refreshInterval = positive(value, "refreshInterval");
            return this;
        }

        /**
         * The least time between two lookups of a name that watchers asked for early; default 5 s. Positive: it is
         * what keeps a failing fleet from hammering DNS.
         */
        public Builder minRefreshInterval(final Duration value)
        {
            minRefreshInterval = positive(value, "minRefreshInterval");
            return this;
        }

        /**
         * Which addresses of a name become endpoints; default {@link AddressFamily#preferred()}, one family as the
         * JVM prefers it.
         */
        public Builder addressFamily(final AddressFamily value)
        {
            family = Objects.requireNonNull(value, "addressFamily");
            return this;
        }

        /**
         * The most addresses a name may have (default 256): each is an endpoint with a session of its own, so an
         * answer with more is refused, reported to the watchers' {@code onError}, and the last set stands.
         */
        public Builder maxAddresses(final int value)
        {
            if (value < 1)
            {
                throw new IllegalArgumentException("maxAddresses must be >= 1, was " + value);
            }
            maxAddresses = value;
            return this;
        }

        /**
         * A resolver with these settings and a thread of its own ({@code xio-dns}, started by the first watch),
         * which {@link DnsEndpointResolver#close()} stops.
         */
        public DnsEndpointResolver build()
        {
            return new DnsEndpointResolver(this, SystemNanoClock.INSTANCE, new ExecutorClientThread("xio-dns"));
        }

        private static Duration positive(final Duration value, final String name)
        {
            if (value == null || value.isNegative() || value.isZero())
            {
                throw new IllegalArgumentException(name + " must be positive, was " + value);
            }
            return value;
        }
    }
}
