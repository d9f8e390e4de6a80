package io.xio.engine.cluster;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.GoAway;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionListener;
import io.xio.engine.SessionOptions;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.XioEngine;
import io.xio.engine.XioUri;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The {@link ServiceClient} of the engine. Membership changes (resolver reports, session events) are applied under
 * one lock and published as an immutable list of the members able to take calls, which {@link #pick} reads without
 * locking or allocating. Timers, second attempts and woken waiters run on the client's own thread, never on the
 * thread that caused them (a context thread, or one holding the lock).
 */
final class ServiceClientImpl implements ServiceClient, EndpointResolver.Listener
{
    private static final Logger LOG = LoggerFactory.getLogger(ServiceClientImpl.class);
    private static final int MAX_PICKS = 8;
    private static final long MIN_REOPEN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** A server that refused as draining will not take the session soon; it is likely leaving the resolver's list. */
    private static final long DRAINING_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The same credentials fail again, and count against this host: ask seldom. */
    private static final long AUTHENTICATION_RETRY_NANOS = TimeUnit.SECONDS.toNanos(15);
    /** A session that lived this long proved its endpoint: reopening after it starts the backoff again. */
    private static final long PROVEN_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long ERROR_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final XioEngine engine;
    private final String service;
    private final String resource;
    private final LoadBalancer balancer;
    private final List<String> transports;
    private final SessionOptions sessionOptions;
    private final int maxAttempts;
    private final io.xio.engine.Backoff backoff;
    private final String localHost;
    private final long removalGraceNanos;
    private final ScheduledThreadPoolExecutor timers;
    private final Object lock = new Object();
    /** By endpoint id; under {@link #lock}. */
    private final Map<String, Member> members = new HashMap<>();
    /** Sessions draining after their endpoint left or moved, until they close; under {@link #lock}. */
    private final List<Member> leaving = new ArrayList<>();
    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();
    /** Calls waiting for their next attempt's timer; whoever removes one (its timer, or close) goes on with it. */
    private final Set<ServiceCall<?>> backingOff = ConcurrentHashMap.newKeySet();
    private volatile List<Member> active = List.of();
    private volatile boolean closed;
    /** When the resolver's last failure was logged; under {@link #lock}. */
    private long lastErrorLog;
    private final EndpointResolver.Watch watch;

    ServiceClientImpl(final Builder builder)
    {
        this.engine = builder.engine;
        this.service = builder.service;
        this.resource = builder.resource;
        this.balancer = builder.balancer;
        this.transports = builder.transports;
        this.sessionOptions = builder.sessionOptions;
        this.maxAttempts = builder.maxAttempts;
        this.backoff = builder.backoff;
        this.localHost = builder.localHost;
        this.removalGraceNanos = builder.removalGrace.toNanos();
        this.timers = new ScheduledThreadPoolExecutor(1, task ->
        {
            final Thread thread = new Thread(task, "xio-service-client-" + service);
            thread.setDaemon(true);
            return thread;
        });
        timers.setRemoveOnCancelPolicy(true);
        // On close, tasks already due (waking a waiter) still run and later ones are dropped (failBackingOff ends
        // the calls among them); nothing running is interrupted.
        timers.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.watch = builder.resolver.watch(service, this);
    }

    @Override
    public String service()
    {
        return service;
    }

    @Override
    public String resource()
    {
        return resource;
    }

    // ---------------------------------------------------------------- membership

    @Override
    public void onEndpoints(final List<Endpoint> endpoints)
    {
        final List<Member> toOpen = new ArrayList<>();
        synchronized (lock)
        {
            if (closed)
            {
                return;
            }
            final Map<String, Endpoint> now = new HashMap<>();
            for (final Endpoint endpoint : endpoints)
            {
                now.put(endpoint.id(), endpoint);
            }
            final long at = System.nanoTime();
            for (final Member member : new ArrayList<>(members.values()))
            {
                final Endpoint reported = now.get(member.endpoint.id());
                if (reported != null && sameAddresses(reported, member.endpoint))
                {
                    member.unlistedAt = 0; // back (or never gone): a resolver's hiccup
                }
                else if (reported == null && removalGraceNanos > 0 && member.takesCalls())
                {
                    // A healthy session outlives a resolver's brief gap (a ZooKeeper session rebuilt after an
                    // outage); a server that leaves for good sends GOAWAY, or its connection drops, meanwhile.
                    if (member.unlistedAt == 0)
                    {
                        member.unlistedAt = at;
                        schedule(removalGraceNanos, () -> removeIfStillUnlisted(member, at));
                    }
                }
                else
                {
                    members.remove(member.endpoint.id());
                    retire(member, reported == null ? "no longer listed by the resolver" : "its portals changed");
                }
            }
            for (final Endpoint endpoint : endpoints)
            {
                if (!members.containsKey(endpoint.id()))
                {
                    final Member member = new Member(endpoint);
                    members.put(endpoint.id(), member);
                    toOpen.add(member);
                }
            }
            publish();
        }
        toOpen.forEach(member -> open(member, null));
    }

    private void removeIfStillUnlisted(final Member member, final long unlistedAt)
    {
        synchronized (lock)
        {
            if (!closed && member.unlistedAt == unlistedAt && members.get(member.endpoint.id()) == member)
            {
                members.remove(member.endpoint.id());
                retire(member, "no longer listed by the resolver");
                publish();
            }
        }
    }

    @Override
    public void onError(final Throwable cause)
    {
        final int known;
        synchronized (lock)
        {
            final long now = System.nanoTime();
            if (lastErrorLog != 0 && now - lastErrorLog < ERROR_LOG_INTERVAL_NANOS)
            {
                return; // a backend that stays away would otherwise write a line per report
            }
            lastErrorLog = now;
            known = members.size();
        }
        LOG.warn("the resolver of service {} failed; going on with the {} endpoint(s) known: {}", service, known,
            String.valueOf(cause));
    }

    private static boolean sameAddresses(final Endpoint a, final Endpoint b)
    {
        return a.host().equals(b.host()) && a.portals().equals(b.portals());
    }

    /**
     * Takes a member out of service, under {@link #lock}: it gets no new calls (the caller publishes), and its session
     * drains itself, so a call that picked it a moment ago is refused unsent and goes elsewhere, and the session
     * closes after its last answer (its calls' deadlines bound that wait).
     */
    private void retire(final Member member, final String why)
    {
        member.removed = true;
        member.state = EndpointStatus.State.DRAINING;
        member.lastFailure = why;
        member.generation++; // an opening still under way is stale now
        drain(member, member.session, why);
    }

    /** Drains {@code session} of {@code member} and keeps it listed until it closes; under {@link #lock}. */
    private void drain(final Member member, final Session session, final String why)
    {
        if (session != null && session.isOpen())
        {
            final Member draining = new Member(member.endpoint);
            draining.removed = true;
            draining.session = session;
            draining.portal = member.portal;
            draining.transport = member.transport;
            draining.reason = member.reason;
            draining.state = EndpointStatus.State.DRAINING;
            draining.lastFailure = why;
            leaving.add(draining);
            session.goAway(GoAway.of(why)); // no effect on one the server already sent away
        }
    }

    /**
     * Rebuilds the list {@link #pick} reads, under {@link #lock}: the members able to take calls with a connection
     * up, or, when none has, those reconnecting. Wakes callers waiting for a session.
     */
    private void publish()
    {
        final List<Member> ready = new ArrayList<>(members.size());
        final List<Member> connected = new ArrayList<>(members.size());
        for (final Member member : members.values())
        {
            if (member.takesCalls())
            {
                ready.add(member);
                if (member.session.connectionCount() > 0)
                {
                    connected.add(member);
                }
            }
        }
        final List<Member> chosen = connected.isEmpty() ? ready : connected;
        chosen.sort((a, b) -> a.endpoint.id().compareTo(b.endpoint.id())); // a stable order for round robin
        active = List.copyOf(chosen);
        if (chosen.isEmpty())
        {
            return; // the next change wakes the waiters
        }
        for (final java.util.Iterator<Waiter> it = waiters.iterator(); it.hasNext(); )
        {
            final Waiter waiter = it.next();
            it.remove();
            final Session session = pick(waiter.key);
            if (session != null)
            {
                // Not on this thread: it holds the lock, and may be a context thread the call must not wait on.
                execute(() -> waiter.future.complete(session)); // no effect when its caller gave up
            }
            else
            {
                waiters.add(waiter);
                return;
            }
        }
    }

    // ---------------------------------------------------------------- opening an endpoint's session

    /**
     * Opens {@code member}'s session at its own portals, or at {@code migrateTo} (a GOAWAY's): supersedes any opening
     * under way, whose result is then dropped.
     */
    private void open(final Member member, final List<XioUri> migrateTo)
    {
        final long generation;
        final List<Plan> plan;
        synchronized (lock)
        {
            if (closed || member.removed)
            {
                return;
            }
            generation = ++member.generation;
            member.opening = true;
            if (member.session == null || !member.session.isOpen())
            {
                member.state = EndpointStatus.State.CONNECTING;
            }
            plan = migrateTo != null ? migrationPlan(member, migrateTo) :
                plan(member.endpoint.portals(), member.endpoint.host());
        }
        tryPortal(member, generation, plan, 0, new ArrayList<>(), false);
    }

    /** One portal to try, and why it is where it is in the order; {@code why} starts with "!" when it may not be. */
    private record Plan(XioUri portal, String why)
    {
    }

    /** The endpoint's portals in this client's order of transports, each with why it may be used or not. */
    private List<Plan> plan(final List<XioUri> portals, final String host)
    {
        final List<Plan> plan = new ArrayList<>();
        for (final String scheme : transports)
        {
            for (final XioUri portal : portals)
            {
                if (portal.scheme().equals(scheme))
                {
                    plan.add(new Plan(portal, why(scheme, host)));
                }
            }
        }
        return plan;
    }

    /**
     * Where a GOAWAY sends {@code member}: its portals in this client's order, those that would take the credentials
     * somewhere weaker than the session they leave (another host, tls to plaintext, local to the network) passed
     * over, as a redirect's are, unless the resolver lists that portal or the session may take its credentials there
     * ({@link SessionOptions#credentialsOnRedirect()}, or it has none). The server names them, and whoever answers in
     * its place could name its own host.
     */
    private List<Plan> migrationPlan(final Member member, final List<XioUri> portals)
    {
        final XioUri from = member.portal;
        final List<Plan> plan = new ArrayList<>();
        for (final Plan candidate : plan(portals, member.endpoint.host()))
        {
            final String weakened = from == null ? null : from.weakeningTo(candidate.portal);
            if (weakened != null && sessionOptions.hasCredentials() && !sessionOptions.credentialsOnRedirect() &&
                !listed(candidate.portal))
            {
                plan.add(new Plan(candidate.portal, "!" + candidate.portal.scheme() + ": a GOAWAY named " +
                    candidate.portal + ", " + weakened + ": the credentials are not sent there (SessionOptions" +
                    ".withCredentialsOnRedirect(true) allows it)"));
            }
            else
            {
                plan.add(candidate);
            }
        }
        return plan;
    }

    /** Whether {@code portal} is a portal of an endpoint the resolver lists; under {@link #lock}. */
    private boolean listed(final XioUri portal)
    {
        final XioUri endpoint = portal.endpoint();
        for (final Member member : members.values())
        {
            if (member.endpoint.portals().contains(endpoint))
            {
                return true;
            }
        }
        return false;
    }

    /** Why {@code scheme} may serve an endpoint on {@code host}; starts with "!" when it may not. */
    private String why(final String scheme, final String host)
    {
        if (!engine.hasTransport(scheme))
        {
            return "!" + scheme + ": no " + scheme + " transport here";
        }
        if (TransportPreference.SAME_HOST.contains(scheme))
        {
            return host.isEmpty() ? "!" + scheme + ": its host is unknown" :
                !host.equals(localHost) ? "!" + scheme + ": another host" : "same host";
        }
        return switch (scheme)
        {
            case "rdma" -> "an rdma device here reaches it";
            case "tls" -> "network, tls";
            case "tcp" -> "network";
            default -> scheme + " portal";
        };
    }

    private void tryPortal(final Member member, final long generation, final List<Plan> plan, final int index,
        final List<String> passed, final boolean triedAny)
    {
        if (closed || member.generation != generation)
        {
            return;
        }
        if (index == plan.size())
        {
            unreachable(member, generation, passed.isEmpty() ? "it has no portal of the transports " + transports :
                String.join("; ", passed), triedAny);
            return;
        }
        final Plan next = plan.get(index);
        if (next.why.startsWith("!"))
        {
            passed.add(next.why.substring(1));
            tryPortal(member, generation, plan, index + 1, passed, triedAny);
            return;
        }
        final CompletableFuture<Session> opening;
        try
        {
            opening = engine.openSession(next.portal.withResource(resource).toString(),
                sessionOptions.withListener(new MemberListener(member, sessionOptions.listener())));
        }
        catch (final RuntimeException ex)
        {
            passed.add(next.portal.scheme() + ": " + ex.getMessage());
            tryPortal(member, generation, plan, index + 1, passed, true);
            return;
        }
        opening.whenComplete((session, failure) ->
        {
            if (failure != null)
            {
                final Throwable cause = unwrap(failure);
                member.lastRejection = cause instanceof SessionRejectedException rejected ? rejected : null;
                passed.add(next.portal.scheme() + ": " + cause.getMessage());
                tryPortal(member, generation, plan, index + 1, passed, true);
                return;
            }
            opened(member, generation, next, passed, session);
        });
    }

    private void opened(final Member member, final long generation, final Plan chosen, final List<String> passed,
        final Session session)
    {
        synchronized (lock)
        {
            if (closed || member.removed || member.generation != generation)
            {
                session.close(); // superseded: nothing was sent on it
                return;
            }
            final Session old = member.session;
            if (old != null && old != session)
            {
                drain(member, old, "replaced by a session at " + chosen.portal);
            }
            member.session = session;
            member.openedAt = System.nanoTime();
            member.opening = false;
            member.portal = chosen.portal;
            member.transport = chosen.portal.scheme();
            member.reason = passed.isEmpty() ? chosen.why : chosen.why + " (passed over: " +
                String.join("; ", passed) + ")";
            member.lastFailure = null;
            member.lastRejection = null;
            member.state = EndpointStatus.State.ACTIVE;
            publish();
        }
    }

    private void unreachable(final Member member, final long generation, final String why, final boolean triedAny)
    {
        final long delay;
        synchronized (lock)
        {
            if (member.generation != generation)
            {
                return; // superseded by another opening
            }
            member.opening = false;
            member.lastFailure = why;
            if (member.session != null && member.session.isOpen())
            {
                return; // a migration failed: the session it would have replaced goes on (and drains itself)
            }
            member.state = EndpointStatus.State.UNREACHABLE;
            member.failures++;
            publish();
            if (!triedAny)
            {
                return; // nothing here can reach it; tried again when the resolver reports it changed
            }
            final SessionRejectedException rejection = member.lastRejection;
            delay = rejection == null ? 0 : rejection.isAuthenticationFailure() ? AUTHENTICATION_RETRY_NANOS :
                rejection.isDraining() ? DRAINING_RETRY_NANOS : 0;
        }
        LOG.debug("endpoint {} of service {} unreachable: {}", member.endpoint.id(), service, why);
        reopenLater(member, delay);
    }

    private void reopenLater(final Member member, final long atLeastNanos)
    {
        final long delay = Math.max(Math.max(MIN_REOPEN_NANOS, atLeastNanos), backoff.delayNanos(member.failures));
        schedule(delay, () ->
        {
            final boolean due;
            synchronized (lock)
            {
                due = !closed && !member.removed && !member.opening &&
                    (member.session == null || !member.session.isOpen());
            }
            if (due)
            {
                open(member, null);
            }
        });
    }

    /** Follows one member's session: drops it from the published list when it cannot take calls. */
    private final class MemberListener implements SessionListener
    {
        private final Member member;
        private final SessionListener application;

        MemberListener(final Member member, final SessionListener application)
        {
            this.member = member;
            this.application = application;
        }

        @Override
        public void onEvent(final SessionEvent event)
        {
            try
            {
                application.onEvent(event);
            }
            finally
            {
                onMemberEvent(member, event);
            }
        }
    }

    private void onMemberEvent(final Member member, final SessionEvent event)
    {
        final Session session = event.session();
        if (session == null)
        {
            return; // a connection-level error
        }
        if (event.type() == SessionEvent.Type.CLOSED)
        {
            synchronized (lock)
            {
                leaving.removeIf(m -> m.session == session); // a drained session is gone
            }
        }
        if (session != member.session || member.removed)
        {
            return; // a replaced session's, or a retired member's
        }
        switch (event.type())
        {
            case GOAWAY ->
            {
                final GoAway goAway = session.goAwayReceived();
                synchronized (lock)
                {
                    member.state = EndpointStatus.State.DRAINING;
                    member.lastFailure = "the server sent GOAWAY" +
                        (goAway == null || goAway.reason().isEmpty() ? "" : ": " + goAway.reason());
                    publish();
                }
                if (goAway != null && !goAway.portals().isEmpty())
                {
                    open(member, goAway.portals()); // a live migration: the new session takes new calls
                }
            }
            case CLOSED ->
            {
                final boolean reopen;
                synchronized (lock)
                {
                    reopen = member.session == session && !closed;
                    if (reopen)
                    {
                        member.state = EndpointStatus.State.UNREACHABLE;
                        member.lastFailure = event.detail();
                        if (System.nanoTime() - member.openedAt >= PROVEN_NANOS)
                        {
                            member.failures = 0;
                        }
                        else
                        {
                            member.failures++; // accepted, then sent away or closed at once: do not hammer it
                        }
                        publish();
                    }
                }
                if (reopen)
                {
                    reopenLater(member, 0); // the resolver still lists it: it may be back (a restart), or never
                }
            }
            case RECONNECTING, RECONNECTED ->
            {
                synchronized (lock)
                {
                    publish(); // a session with no connection up is passed over while others have one
                }
            }
            default ->
            {
            }
        }
    }

    /**
     * Tries {@code call} again after {@code delayNanos} on the client's thread; fails it as closed when the client
     * closed first, or closes before the timer fires (its timers are dropped then), so that no call is left without
     * an end.
     */
    void retryLater(final ServiceCall<?> call, final long delayNanos)
    {
        backingOff.add(call);
        schedule(delayNanos, () ->
        {
            if (backingOff.remove(call))
            {
                call.attempt(false);
            }
        });
        if (closed)
        {
            failBackingOff(); // the timer was refused, or close() swept the set before this call joined it
        }
    }

    private void failBackingOff()
    {
        for (final ServiceCall<?> call : backingOff)
        {
            if (backingOff.remove(call))
            {
                call.result.completeExceptionally(closedFailure());
            }
        }
    }

    private void schedule(final long delayNanos, final Runnable task)
    {
        try
        {
            timers.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }
        catch (final RejectedExecutionException ex)
        {
            // closed
        }
    }

    private void execute(final Runnable task)
    {
        try
        {
            timers.execute(task);
        }
        catch (final RejectedExecutionException ex)
        {
            // closed: close() fails the waiters
        }
    }

    // ---------------------------------------------------------------- calls

    @Override
    public Session pick(final long key)
    {
        for (int tries = 0; tries < MAX_PICKS; tries++)
        {
            final List<Member> ready = active;
            if (ready.isEmpty())
            {
                return null;
            }
            final Session session = ready.get(ready.size() == 1 ? 0 : balancer.pick(ready, key)).session;
            // A connection may have dropped since the list was published (its event comes just after): with others
            // to choose, pass it over; the event republishes, and a caller left waiting is woken then.
            if (session != null && session.isOpen() && !session.isDraining() &&
                (session.connectionCount() > 0 || ready.size() == 1))
            {
                return session;
            }
        }
        return null;
    }

    @Override
    public CompletableFuture<Session> session(final long key)
    {
        final Session now = pick(key);
        if (now != null)
        {
            return CompletableFuture.completedFuture(now);
        }
        final Waiter waiter = new Waiter(new CompletableFuture<>(), key);
        waiters.removeIf(w -> w.future.isDone()); // callers that gave up
        waiters.add(waiter);
        synchronized (lock)
        {
            if (closed)
            {
                waiters.remove(waiter);
                waiter.future.completeExceptionally(closedFailure());
            }
            else
            {
                publish(); // a member may have come up between the pick and the add
            }
        }
        return waiter.future;
    }

    private ConnectionException closedFailure()
    {
        return new ConnectionException("service client of " + service + " is closed");
    }

    /** A caller waiting for a session, and its routing key. */
    private record Waiter(CompletableFuture<Session> future, long key)
    {
    }

    @Override
    public CompletableFuture<Message> request(final Outbound message, final CallOptions options, final long key)
    {
        final ServiceCall<Message> call = new ServiceCall<>(this, message, options, key, false);
        call.attempt(true);
        return call.result;
    }

    @Override
    public CompletableFuture<Void> send(final Outbound message, final CallOptions options, final long key)
    {
        final ServiceCall<Void> call = new ServiceCall<>(this, message, options, key, true);
        call.attempt(true);
        return call.result;
    }

    /** How long a call without a deadline of its own may take. */
    long defaultTimeoutNanos()
    {
        return sessionOptions.timeout().toNanos();
    }

    int maxAttempts()
    {
        return maxAttempts;
    }

    io.xio.engine.Backoff backoff()
    {
        return backoff;
    }

    /** Whether more than one endpoint can take calls now: else an idempotent call waits for its session. */
    boolean hasAlternatives()
    {
        return active.size() > 1;
    }

    /** The endpoints and their states, for a call that found none. */
    String describe()
    {
        final List<EndpointStatus> now = endpoints();
        return now.isEmpty() ? "the resolver lists none" : now.stream().map(e -> e.endpoint().id() + " " +
            e.state() + (e.lastFailure() == null ? "" : " (" + e.lastFailure() + ")")).toList().toString();
    }

    static Throwable unwrap(final Throwable ex)
    {
        return ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
    }

    // ---------------------------------------------------------------- monitoring and close

    @Override
    public List<EndpointStatus> endpoints()
    {
        synchronized (lock)
        {
            final List<EndpointStatus> all = new ArrayList<>();
            members.values().forEach(m -> all.add(m.status()));
            leaving.forEach(m -> all.add(m.status()));
            all.sort((a, b) -> a.endpoint().id().compareTo(b.endpoint().id()));
            return List.copyOf(all);
        }
    }

    @Override
    public void close()
    {
        final List<Session> sessions = new ArrayList<>();
        synchronized (lock)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            members.values().forEach(m ->
            {
                m.removed = true;
                m.generation++;
                if (m.session != null)
                {
                    sessions.add(m.session);
                }
            });
            leaving.forEach(m -> sessions.add(m.session));
            members.clear();
            leaving.clear();
            active = List.of();
        }
        watch.close();
        timers.shutdown();
        sessions.forEach(Session::close);
        Waiter waiter;
        while ((waiter = waiters.poll()) != null)
        {
            waiter.future.completeExceptionally(closedFailure());
        }
        failBackingOff(); // the calls whose timers the shutdown dropped; any joining later fail in retryLater
    }

    @Override
    public String toString()
    {
        return "ServiceClient[" + service + "/" + resource + ", " + active.size() + " active]";
    }

    /** One endpoint and its session. Fields written under {@link #lock}, read by {@link #pick} without it. */
    private static final class Member implements LoadBalancer.Candidate
    {
        final Endpoint endpoint;
        volatile Session session;
        volatile EndpointStatus.State state = EndpointStatus.State.CONNECTING;
        volatile boolean removed;
        volatile XioUri portal;
        volatile String transport;
        volatile String reason;
        volatile String lastFailure;
        volatile SessionRejectedException lastRejection;
        /** Counts openings: a result of an older one is dropped. */
        volatile long generation;
        boolean opening;
        long openedAt;
        int failures;
        /** When the resolver stopped listing it (0: it lists it); its removal waits for the grace. */
        long unlistedAt;

        Member(final Endpoint endpoint)
        {
            this.endpoint = endpoint;
        }

        boolean takesCalls()
        {
            final Session now = session;
            return !removed && state == EndpointStatus.State.ACTIVE && now != null && now.isOpen() &&
                !now.isDraining();
        }

        @Override
        public Endpoint endpoint()
        {
            return endpoint;
        }

        @Override
        public int inFlight()
        {
            final Session now = session;
            return now == null ? 0 : now.inFlight();
        }

        EndpointStatus status()
        {
            return new EndpointStatus(endpoint, state, portal, transport, reason, inFlight(), lastFailure);
        }
    }
}
