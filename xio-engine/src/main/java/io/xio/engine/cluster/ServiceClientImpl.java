package io.xio.engine.cluster;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.RemoteException;
import io.xio.engine.Session;
import io.xio.engine.SessionDrainingException;
import io.xio.engine.SessionEvent;
import io.xio.engine.SessionListener;
import io.xio.engine.XioEngine;
import io.xio.engine.XioFuture;
import io.xio.engine.XioTimeoutException;
import io.xio.engine.XioUri;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@link ServiceClient} of the engine. Membership changes (resolver reports, session events) are applied under
 * one lock and published as an immutable list of the members able to take calls, which {@link #pick} reads without
 * locking or allocating.
 */
final class ServiceClientImpl implements ServiceClient, EndpointResolver.Listener
{
    private static final Logger LOG = LoggerFactory.getLogger(ServiceClientImpl.class);
    private static final int MAX_PICKS = 8;
    private static final long MIN_REOPEN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long ERROR_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long AUTHENTICATION_RETRY_NANOS = TimeUnit.SECONDS.toNanos(15);

    private final XioEngine engine;
    private final String service;
    private final String resource;
    private final LoadBalancer balancer;
    private final List<String> transports;
    private final io.xio.engine.SessionOptions sessionOptions;
    private final int maxAttempts;
    private final io.xio.engine.Backoff backoff;
    private final String localHost;
    private final Object lock = new Object();
    /** By endpoint id; under {@link #lock}. */
    private final Map<String, Member> members = new HashMap<>();
    /** Members draining after the resolver dropped them or their server sent GOAWAY; under {@link #lock}. */
    private final List<Member> leaving = new ArrayList<>();
    private final ConcurrentLinkedQueue<CompletableFuture<Session>> waiters = new ConcurrentLinkedQueue<>();
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
            for (final Member member : new ArrayList<>(members.values()))
            {
                final Endpoint reported = now.get(member.endpoint.id());
                if (reported == null || !sameAddresses(reported, member.endpoint))
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
        toOpen.forEach(this::open);
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
     * Takes a member out of service: it gets no new calls (the caller publishes), and its session drains itself, so a
     * call that picked it a moment ago is refused unsent and goes elsewhere, and the session closes after its last
     * answer (its calls' deadlines bound that wait).
     */
    private void retire(final Member member, final String why)
    {
        member.removed = true;
        member.state = EndpointStatus.State.DRAINING;
        member.lastFailure = why;
        final Session session = member.session;
        if (session != null && session.isOpen())
        {
            leaving.add(member);
            session.goAway(io.xio.engine.GoAway.of(why));
        }
    }

    /** Rebuilds the list {@link #pick} reads; under {@link #lock}. Wakes callers waiting for a session. */
    private void publish()
    {
        final List<Member> ready = new ArrayList<>(members.size());
        for (final Member member : members.values())
        {
            if (member.takesCalls())
            {
                ready.add(member);
            }
        }
        ready.sort((a, b) -> a.endpoint.id().compareTo(b.endpoint.id())); // a stable order for round robin
        active = List.copyOf(ready);
        while (!waiters.isEmpty())
        {
            final Session session = pick(0);
            if (session == null)
            {
                return; // the next change wakes them
            }
            final CompletableFuture<Session> waiter = waiters.poll();
            if (waiter != null)
            {
                // Not on this thread: it holds the lock, and may be a context thread the call must not wait on.
                waiter.completeAsync(() -> session); // no effect when its caller gave up
            }
        }
    }

    // ---------------------------------------------------------------- opening an endpoint's session

    private void open(final Member member)
    {
        final List<Plan> plan = member.migrateTo != null ? plan(member.migrateTo, member.endpoint.host()) :
            plan(member.endpoint.portals(), member.endpoint.host());
        member.migrateTo = null;
        member.state = EndpointStatus.State.CONNECTING;
        tryPortal(member, plan, 0, new ArrayList<>());
    }

    /** One portal to try, and why it is where it is in the order. */
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
                if (!portal.scheme().equals(scheme))
                {
                    continue;
                }
                plan.add(new Plan(portal, why(scheme, host)));
            }
        }
        return plan;
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

    private void tryPortal(final Member member, final List<Plan> plan, final int index, final List<String> passed)
    {
        if (closed || member.removed)
        {
            return;
        }
        if (index == plan.size())
        {
            unreachable(member, passed.isEmpty() ? "it has no portal of the transports " + transports :
                String.join("; ", passed), member.lastRejection);
            return;
        }
        final Plan next = plan.get(index);
        if (next.why.startsWith("!"))
        {
            passed.add(next.why.substring(1));
            tryPortal(member, plan, index + 1, passed);
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
            tryPortal(member, plan, index + 1, passed);
            return;
        }
        opening.whenComplete((session, failure) ->
        {
            if (failure != null)
            {
                final Throwable cause = unwrap(failure);
                member.lastRejection = cause instanceof io.xio.engine.SessionRejectedException rejected ? rejected :
                    null;
                passed.add(next.portal.scheme() + ": " + cause.getMessage());
                tryPortal(member, plan, index + 1, passed);
                return;
            }
            synchronized (lock)
            {
                if (closed || member.removed)
                {
                    session.close();
                    return;
                }
                final Session old = member.session;
                member.session = session;
                member.portal = next.portal;
                member.transport = next.portal.scheme();
                member.reason = passed.isEmpty() ? next.why : next.why + " (passed over: " +
                    String.join("; ", passed) + ")";
                member.failures = 0;
                member.lastFailure = null;
                member.state = EndpointStatus.State.ACTIVE;
                if (old != null && old != session && old.isOpen())
                {
                    // A migration: the old session finishes its calls (its server sent GOAWAY) and closes itself.
                    final Member previous = new Member(member.endpoint);
                    previous.removed = true;
                    previous.session = old;
                    previous.state = EndpointStatus.State.DRAINING;
                    leaving.add(previous);
                }
                publish();
            }
        });
    }

    private void unreachable(final Member member, final String why,
        final io.xio.engine.SessionRejectedException rejection)
    {
        synchronized (lock)
        {
            member.state = EndpointStatus.State.UNREACHABLE;
            member.lastFailure = why;
            member.failures++;
            publish();
        }
        LOG.debug("endpoint {} of service {} unreachable: {}", member.endpoint.id(), service, why);
        // The same credentials fail again and count against this host: ask seldom.
        reopenLater(member, rejection != null && rejection.isAuthenticationFailure() ? AUTHENTICATION_RETRY_NANOS :
            0);
    }

    private void reopenLater(final Member member)
    {
        reopenLater(member, 0);
    }

    private void reopenLater(final Member member, final long atLeastNanos)
    {
        final long delay = Math.max(Math.max(MIN_REOPEN_NANOS, atLeastNanos), backoff.delayNanos(member.failures));
        CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(() ->
        {
            if (!closed && !member.removed && (member.session == null || !member.session.isOpen()))
            {
                open(member);
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
        if (session != null && event.type() == SessionEvent.Type.CLOSED)
        {
            synchronized (lock)
            {
                leaving.removeIf(m -> m.session == session); // a drained session is gone
            }
        }
        if (session == null || session != member.session || member.removed)
        {
            return; // an old session's, a retired member's, or a connection-level error
        }
        switch (event.type())
        {
            case GOAWAY ->
            {
                final io.xio.engine.GoAway goAway = session.goAwayReceived();
                synchronized (lock)
                {
                    member.state = EndpointStatus.State.DRAINING;
                    member.lastFailure = "the server sent GOAWAY" +
                        (goAway == null || goAway.reason().isEmpty() ? "" : ": " + goAway.reason());
                    publish();
                }
                if (goAway != null && !goAway.portals().isEmpty() && !member.removed && !closed)
                {
                    member.migrateTo = goAway.portals();
                    open(member); // a live migration: the new session takes new calls, the old one finishes
                }
            }
            case CLOSED ->
            {
                synchronized (lock)
                {
                    if (member.session == session)
                    {
                        member.state = EndpointStatus.State.UNREACHABLE;
                        member.lastFailure = event.detail();
                        publish();
                    }
                }
                if (!member.removed && !closed && member.migrateTo == null)
                {
                    reopenLater(member); // the resolver still lists it: it may be back (a restart), or never
                }
            }
            case RECONNECTING, RECONNECTED ->
            {
                synchronized (lock)
                {
                    publish(); // a session with no connection up is passed over while others are
                }
            }
            default ->
            {
            }
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
            final Member member = ready.get(ready.size() == 1 ? 0 : balancer.pick(ready, key));
            final Session session = member.session;
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
        if (closed)
        {
            return CompletableFuture.failedFuture(new ConnectionException("service client of " + service +
                " is closed"));
        }
        waiters.removeIf(CompletableFuture::isDone); // callers that gave up
        final CompletableFuture<Session> waiter = new CompletableFuture<>();
        waiters.add(waiter);
        synchronized (lock)
        {
            publish(); // a member may have come up between the pick and the add
        }
        return waiter;
    }

    @Override
    public CompletableFuture<Message> request(final Outbound message, final CallOptions options, final long key)
    {
        final Call<Message> call = new Call<>(message, options, key, false);
        call.attempt();
        return call.result;
    }

    @Override
    public CompletableFuture<Void> send(final Outbound message, final CallOptions options, final long key)
    {
        final Call<Void> call = new Call<>(message, options, key, true);
        call.attempt();
        return call.result;
    }

    /** One call over attempts: another endpoint after a refusal before sending, or after a loss if idempotent. */
    private final class Call<T>
    {
        final CompletableFuture<T> result = new CompletableFuture<>();
        final Outbound first;
        final CallOptions options;
        final long key;
        final boolean oneWay;
        final long begun = System.nanoTime();
        final long budget;
        final AtomicReference<CompletableFuture<?>> current = new AtomicReference<>();
        int attempts;
        boolean firstUsed;
        volatile boolean retrying;

        Call(final Outbound message, final CallOptions options, final long key, final boolean oneWay)
        {
            this.first = message;
            this.options = options;
            this.key = key;
            this.oneWay = oneWay;
            this.budget = (options.timeout() != null ? options.timeout() : sessionOptions.timeout()).toNanos();
            result.whenComplete((value, ex) ->
            {
                final CompletableFuture<?> inFlight = current.get();
                if (result.isCancelled() && inFlight != null)
                {
                    inFlight.cancel(true); // cancels the call on the server too
                }
            });
        }

        void attempt()
        {
            final long left = budget - (System.nanoTime() - begun);
            if (left <= 0)
            {
                result.completeExceptionally(new XioTimeoutException("the call's " +
                    TimeUnit.NANOSECONDS.toMillis(budget) + " ms passed before an endpoint of " + service +
                    " could take it"));
                return;
            }
            final CompletableFuture<Session> session = session(key);
            current.set(session);
            session.orTimeout(left, TimeUnit.NANOSECONDS).whenComplete((chosen, failure) ->
            {
                if (failure != null)
                {
                    final Throwable cause = unwrap(failure);
                    result.completeExceptionally(cause instanceof java.util.concurrent.TimeoutException ?
                        new ConnectionException("no endpoint of service " + service + " could take the call within " +
                            "its deadline: " + describe()) : cause);
                    return;
                }
                send(chosen);
            });
        }

        @SuppressWarnings("unchecked")
        private void send(final Session chosen)
        {
            if (result.isDone())
            {
                return;
            }
            attempts++;
            final Outbound message = firstUsed ? again(first) : first;
            firstUsed = true;
            // Another attempt runs on a shared pool's thread (never on the thread that saw the failure, which may be
            // a context thread): it must not wait there for room in a session's window.
            final CallOptions remaining = options.withTimeout(Duration.ofNanos(Math.max(1,
                budget - (System.nanoTime() - begun)))).withWaitWhenFull(options.waitWhenFull() && !retrying);
            final XioFuture<?> sent;
            try
            {
                sent = oneWay ? chosen.send(message, remaining) : chosen.request(message, remaining);
            }
            catch (final RuntimeException ex)
            {
                result.completeExceptionally(ex);
                return;
            }
            current.set(sent);
            if (result.isCancelled())
            {
                sent.cancel(true);
            }
            sent.whenComplete((value, failure) ->
            {
                if (failure == null)
                {
                    if (!result.complete((T)value) && value instanceof Message response)
                    {
                        response.close(); // cancelled meanwhile: nobody else releases it
                    }
                    return;
                }
                final Throwable cause = unwrap(failure);
                if (cause instanceof SessionDrainingException)
                {
                    attempts--; // never sent: not an attempt
                    retrying = true;
                    CompletableFuture.delayedExecutor(0, TimeUnit.NANOSECONDS).execute(this::attempt);
                }
                else if (options.idempotent() && attempts < maxAttempts && mayRetry(cause))
                {
                    retrying = true;
                    CompletableFuture.delayedExecutor(backoff.delayNanos(attempts - 1), TimeUnit.NANOSECONDS)
                        .execute(this::attempt);
                }
                else
                {
                    result.completeExceptionally(cause);
                }
            });
        }
    }

    /** A failure after which an idempotent call may run again: its connection or server went away, or its answer. */
    static boolean mayRetry(final Throwable failure)
    {
        return failure instanceof ConnectionException ||
            failure instanceof RemoteException remote && remote.isResponseLost();
    }

    /** The same header and segments as a new message (xio is done with them once an attempt failed). */
    private static Outbound again(final Outbound sent)
    {
        final ByteBuffer[] segments = new ByteBuffer[sent.segmentCount()];
        for (int i = 0; i < segments.length; i++)
        {
            segments[i] = sent.segment(i);
        }
        final Outbound copy = Outbound.of(sent.header(), segments);
        return sent.metadata() == null ? copy : copy.metadata(new io.xio.engine.Metadata(sent.metadata()));
    }

    private String describe()
    {
        final List<EndpointStatus> now = endpoints();
        return now.isEmpty() ? "the resolver lists none" : now.stream().map(e -> e.endpoint().id() + " " +
            e.state() + (e.lastFailure() == null ? "" : " (" + e.lastFailure() + ")")).toList().toString();
    }

    private static Throwable unwrap(final Throwable ex)
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
                if (m.session != null)
                {
                    sessions.add(m.session);
                }
            });
            leaving.forEach(m ->
            {
                if (m.session != null)
                {
                    sessions.add(m.session);
                }
            });
            members.clear();
            leaving.clear();
            active = List.of();
        }
        watch.close();
        sessions.forEach(Session::close);
        CompletableFuture<Session> waiter;
        while ((waiter = waiters.poll()) != null)
        {
            waiter.completeExceptionally(new ConnectionException("service client of " + service + " is closed"));
        }
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
        volatile List<XioUri> migrateTo;
        volatile XioUri portal;
        volatile String transport;
        volatile String reason;
        volatile String lastFailure;
        volatile io.xio.engine.SessionRejectedException lastRejection;
        int failures;

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
