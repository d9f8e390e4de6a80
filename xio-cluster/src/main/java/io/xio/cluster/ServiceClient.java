package io.xio.cluster;

import io.xio.engine.CallOptions;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.support.Backoff;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * One client over every current endpoint of a service: it watches the service through an {@link EndpointResolver},
 * keeps one session per endpoint (opened at the portal its transport preference picks, by locality: shm on the same
 * host, rdma where both have a device, tls or tcp otherwise), and spreads calls over them with a
 * {@link LoadBalancer}. Endpoints that appear take new calls once their session is up; endpoints that disappear, or
 * whose server sends GOAWAY, take no new calls, finish what they have and are closed. An endpoint whose connection
 * is lost or that cannot be reached makes the client ask its resolver to look again
 * ({@link EndpointResolver.Watch#refresh()}), which a resolver that polls (DNS) does soon. A call refused before it was
 * sent ({@link io.xio.engine.SessionDrainingException}) goes to another endpoint; an idempotent call
 * ({@link CallOptions#idempotent()}) whose connection or server went away is tried again on another within its
 * deadline, and so is an exactly-once call ({@link CallOptions#exactlyOnce()}), with the idempotency key of its first
 * attempt and {@link io.xio.engine.IdempotencyKeys#PREVIOUS_ATTEMPTS_KEY} saying how many went before, so a server
 * keeping an execution ledger runs it once. With one endpoint, both wait for its session's re-attach instead. An
 * attempt of either that a session refused unwritten (one reconnecting, say) does not count against the attempts: it
 * is tried again after a backoff, within the deadline. A call that is neither is never sent twice: in flight on a
 * server that dies, it fails with a {@link io.xio.engine.ConnectionException}, since the server's deduplication
 * window does not move to another. A call's {@code ConnectionException} is its own and its
 * {@link io.xio.engine.ConnectionException#mayHaveRun() mayHaveRun()} says whether any attempt was written (false:
 * the call ran nowhere); a call's {@link io.xio.engine.XioTimeoutException} says the same of its attempts
 * ({@link io.xio.engine.XioTimeoutException#mayHaveRun() mayHaveRun()}: one held by its server past the deadline may
 * run there still). An exactly-once call that failed either way and may have run is sent again with its key, which
 * its message's metadata carries after the call, through {@link io.xio.engine.IdempotencyKeys#forRetry}: never
 * with a new one.
 *
 * <p>Picking a session costs no allocation: {@link #pick(long)} then a session's allocation-free request is the
 * steady-state path. Thread-safe; blocking waits must not happen on a context thread.
 */
public interface ServiceClient extends AutoCloseable
{
    /** A client of {@code service}, whose sessions {@code engine} opens. */
    static Builder builder(final XioEngine engine, final EndpointResolver resolver, final String service)
    {
        return new Builder(engine, resolver, service);
    }

    /** The service name resolved. */
    String service();

    /** The resource the sessions are opened to. */
    String resource();

    /** Sends a request over the endpoint the balancer picks, with no routing key. */
    default CompletableFuture<Message> request(final Outbound message, final CallOptions options)
    {
        return request(message, options, 0);
    }

    /**
     * Sends a request over the endpoint the balancer picks for {@code key} (the rendezvous policy sends equal keys to
     * one endpoint). Completes with the response (which the caller must close) or fails as
     * {@link Session#request(Outbound, CallOptions)} does, plus a {@link io.xio.engine.ConnectionException} when no
     * endpoint could take the call within its deadline. Cancelling the future cancels the call.
     */
    CompletableFuture<Message> request(Outbound message, CallOptions options, long key);

    /** Sends a one-way message over the endpoint the balancer picks for {@code key}. */
    CompletableFuture<Void> send(Outbound message, CallOptions options, long key);

    /**
     * The session the balancer picks for {@code key} among those up and not draining, or null when there is none
     * now (the client opens them meanwhile). Allocation-free.
     */
    Session pick(long key);

    /** As {@link #pick(long)}, but waits for a session (opening sessions as needed) until the future completes. */
    CompletableFuture<Session> session(long key);

    /** Every endpoint now known, with its transport, why that one, and its state. A snapshot; any thread. */
    List<EndpointStatus> endpoints();

    /** Stops watching, closes every session: calls in flight, waiting for a session or to be tried again fail. */
    @Override
    void close();

    /** Builds a {@link ServiceClient}. Not thread-safe. */
    final class Builder
    {
        final XioEngine engine;
        final EndpointResolver resolver;
        final String service;
        String resource;
        LoadBalancer balancer = LoadBalancer.roundRobin();
        List<String> transports = TransportPreference.DEFAULT;
        SessionOptions sessionOptions = SessionOptions.DEFAULT;
        int maxAttempts = 3;
        Backoff backoff = Backoff.of(java.time.Duration.ofMillis(10), java.time.Duration.ofMillis(500));
        String localHost = HostIdentity.local();
        java.time.Duration removalGrace = java.time.Duration.ofSeconds(2);

        Builder(final XioEngine engine, final EndpointResolver resolver, final String service)
        {
            this.engine = Objects.requireNonNull(engine, "engine");
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            this.service = Objects.requireNonNull(service, "service");
            this.resource = service;
        }

        /** The resource sessions are opened to at each endpoint; default: the service name. */
        public Builder resource(final String value)
        {
            resource = Objects.requireNonNull(value, "resource");
            return this;
        }

        /** Default: {@link LoadBalancer#roundRobin()}. */
        public Builder balancer(final LoadBalancer value)
        {
            balancer = Objects.requireNonNull(value, "balancer");
            return this;
        }

        /**
         * The transports to try at each endpoint, most preferred first, by scheme; an endpoint's portals of other
         * schemes are not used. Default {@link TransportPreference#DEFAULT}; same-host schemes ({@code local},
         * {@code shm}) are used only for endpoints on this client's host.
         */
        public Builder transports(final List<String> schemes)
        {
            transports = TransportPreference.check(schemes);
            return this;
        }

        /** How each endpoint's session is opened (credentials, TLS, timeout, connections). */
        public Builder sessionOptions(final SessionOptions value)
        {
            sessionOptions = Objects.requireNonNull(value, "sessionOptions");
            return this;
        }

        /** Attempts of one idempotent call, the first included (default 3), and the waits between them. */
        public Builder retry(final int attempts, final Backoff waits)
        {
            if (attempts < 1)
            {
                throw new IllegalArgumentException("attempts must be >= 1, was " + attempts);
            }
            maxAttempts = attempts;
            backoff = Objects.requireNonNull(waits, "backoff");
            return this;
        }

        /** This client's host identity, compared with endpoints' (default {@link HostIdentity#local()}). */
        public Builder localHost(final String value)
        {
            localHost = Objects.requireNonNull(value, "localHost");
            return this;
        }

        /**
         * How long an endpoint the resolver stopped listing keeps taking calls while its session is healthy (default
         * 2 s), so a resolver's brief gap (a ZooKeeper session rebuilt after an outage, its nodes not yet re-created)
         * does not drain every server; a server that leaves sends GOAWAY, or its connection drops, meanwhile. Zero
         * retires it at once.
         */
        public Builder removalGrace(final java.time.Duration value)
        {
            if (value.isNegative())
            {
                throw new IllegalArgumentException("removalGrace must not be negative, was " + value);
            }
            removalGrace = value;
            return this;
        }

        /** Starts watching the service; sessions open as endpoints arrive. */
        public ServiceClient build()
        {
            return new ServiceClientImpl(this);
        }
    }
}
