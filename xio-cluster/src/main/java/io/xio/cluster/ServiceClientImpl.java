package io.xio.cluster;

import io.xio.engine.CallOptions;
import io.xio.engine.ConnectionException;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.support.Backoff;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * The {@link ServiceClient} of the engine: a facade over its parts, each with one job. {@link Membership} applies
 * the resolver's reports and publishes the members able to take calls to the {@link Picker}, which picks without
 * locking or allocating; the {@link Connector} opens each member's session in its {@link ConnectionPlan}'s order
 * and follows its events; {@link Reconnects} times a lost endpoint's next opening, and {@link CallRetries} a call's
 * next attempt. Member state is under one lock, the client's; timers, second attempts and woken waiters run on the
 * {@link ClientThread}, never on the thread that caused them (a context thread, or one holding the lock). Any
 * thread.
 */
final class ServiceClientImpl implements ServiceClient, EndpointResolver.Listener, ServiceCall.Client
{
    /** What the client runs on: production's are the engine, the system clock and a thread of its own. */
    record Environment(NanoClock clock, ClientThread thread, Connector.Opener opener, Predicate<String> hasTransport)
    {
    }

    private final String service;
    private final String resource;
    private final long defaultTimeoutNanos;
    private final int maxAttempts;
    private final Backoff backoff;
    private final NanoClock clock;
    private final ClientThread thread;
    private final Picker picker;
    private final Membership membership;
    private final Connector connector;
    private final CallRetries retries;
    /** Null until the resolver took the watch: its first report may come (and find an endpoint stale) before. */
    private volatile EndpointResolver.Watch watch;
    /** An endpoint was found stale before the watch was taken: it asks for a refresh once taken. */
    private volatile boolean staleBeforeWatch;

    ServiceClientImpl(final Builder builder)
    {
        this(builder, new Environment(SystemNanoClock.INSTANCE,
            new ExecutorClientThread("xio-service-client-" + builder.service), builder.engine::openSession,
            builder.engine::hasTransport));
    }

    ServiceClientImpl(final Builder builder, final Environment environment)
    {
        this.service = builder.service;
        this.resource = builder.resource;
        this.defaultTimeoutNanos = builder.sessionOptions.timeout().toNanos();
        this.maxAttempts = builder.maxAttempts;
        this.backoff = builder.backoff;
        this.clock = environment.clock();
        this.thread = environment.thread();
        final Object lock = new Object();
        this.picker = new Picker(builder.balancer, thread);
        this.membership = new Membership(new Membership.Context(service, builder.removalGrace.toNanos(), lock, clock,
            thread, picker));
        final Reconnects reconnects = new Reconnects(backoff, lock, clock, thread, this::open);
        this.connector = new Connector(new Connector.Context(service, resource, builder.sessionOptions,
            new ConnectionPlan(builder.transports, environment.hasTransport(), builder.localHost,
            builder.sessionOptions), environment.opener(), lock, clock, membership, reconnects, this::staleEndpoints));
        this.retries = new CallRetries(thread, membership::isClosed, this::closedFailure);
        this.watch = builder.resolver.watch(service, this);
        if (staleBeforeWatch)
        {
            watch.refresh(); // a hint: one lost in a race with this check waits for the resolver's own timer
        }
    }

    /** Asks the resolver to look again: an endpoint was lost or could not be reached. */
    private void staleEndpoints()
    {
        final EndpointResolver.Watch now = watch;
        if (now != null)
        {
            now.refresh();
        }
        else
        {
            staleBeforeWatch = true;
        }
    }

    /** Opens {@code member}'s session at its own portals: a new member's, or a lost one's again. */
    private void open(final Member member)
    {
        connector.open(member, null);
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

    @Override
    public void onEndpoints(final List<Endpoint> endpoints)
    {
        membership.update(endpoints).forEach(this::open);
    }

    @Override
    public void onError(final Throwable cause)
    {
        membership.resolverFailed(cause);
    }

    @Override
    public Session pick(final long key)
    {
        return picker.pick(key);
    }

    @Override
    public CompletableFuture<Session> session(final long key)
    {
        final Session now = picker.pick(key);
        if (now != null)
        {
            return CompletableFuture.completedFuture(now);
        }
        final CompletableFuture<Session> waiting = picker.await(key);
        if (!membership.republish()) // a member may have come up between the pick and the wait
        {
            picker.withdraw(waiting, closedFailure());
        }
        return waiting;
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

    @Override
    public NanoClock clock()
    {
        return clock;
    }

    @Override
    public long defaultTimeoutNanos()
    {
        return defaultTimeoutNanos;
    }

    @Override
    public int maxAttempts()
    {
        return maxAttempts;
    }

    @Override
    public Backoff backoff()
    {
        return backoff;
    }

    @Override
    public boolean hasAlternatives()
    {
        return picker.hasAlternatives();
    }

    @Override
    public void retryLater(final ServiceCall<?> call, final long delayNanos)
    {
        retries.retryLater(call, delayNanos);
    }

    @Override
    public String describe()
    {
        final List<EndpointStatus> now = endpoints();
        return now.isEmpty() ? "the resolver lists none" : now.stream().map(e -> e.endpoint().id() + " " +
            e.state() + (e.lastFailure() == null ? "" : " (" + e.lastFailure() + ")")).toList().toString();
    }

    private ConnectionException closedFailure()
    {
        return new ConnectionException("service client of " + service + " is closed");
    }

    @Override
    public List<EndpointStatus> endpoints()
    {
        return membership.statuses();
    }

    @Override
    public void close()
    {
        final List<Session> sessions = new ArrayList<>();
        if (!membership.close(sessions))
        {
            return;
        }
        watch.close();
        // Tasks already due (waking a waiter) still run, later ones are dropped: the retries' close ends the calls
        // among them, and any joining later.
        thread.shutdown();
        sessions.forEach(Session::close);
        picker.failWaiters(closedFailure());
        retries.close();
    }

    @Override
    public String toString()
    {
        return "ServiceClient[" + service + "/" + resource + ", " + picker.activeCount() + " active]";
    }
}
