package io.xio.spring.client;

import io.xio.cluster.DnsEndpointResolver;
import io.xio.cluster.EndpointResolver;
import io.xio.cluster.LoadBalancer;
import io.xio.engine.Credentials;
import io.xio.engine.TlsOptions;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one client proxy is made of, resolved beforehand (by the auto-configuration from {@code xio.client.*} and
 * {@code xio.clients.<name>.*}, or by an application that builds a client itself): where it calls, how long a call
 * may take, what it presents and trusts, which remote exceptions it rebuilds and how it retries. Immutable.
 *
 * @param name the client's name, or empty for a client given only an address; what the credentials providers and
 *             interceptors are told the client is called (its address when empty)
 * @param uri the address the client calls, or null when it names a service
 * @param service the service whose instances the client calls, or null when it calls one address
 * @param timeout a call's deadline unless its method sets one
 * @param connections the connections of the client's session, 0 for the engine's default
 * @param credentials what the client presents when no {@link XioCredentialsProvider} bean gives anything
 * @param tls the TLS options of a tls:// client, or null for none
 * @param allowedExceptions the exception types a remote failure is rebuilt as, beyond those the method declares
 * @param retry how an idempotent call is tried again
 */
public record XioClientSettings(String name, @Nullable String uri, @Nullable Service service, Duration timeout,
    int connections, Credentials credentials, @Nullable TlsOptions tls,
    List<Class<? extends Exception>> allowedExceptions, Retry retry)
{
    /**
     * Checks that the client calls exactly one address or one service, and that it has a name (empty for none), a
     * timeout, credentials and a retry policy.
     */
    public XioClientSettings
    {
        Objects.requireNonNull(name, "a client's name must not be null (empty for a client given only an address)");
        Objects.requireNonNull(timeout, "a client's timeout must not be null");
        Objects.requireNonNull(credentials, "a client's credentials must not be null (Credentials.NONE for none)");
        Objects.requireNonNull(retry, "a client's retry must not be null");
        if ((uri == null) == (service == null))
        {
            throw new IllegalArgumentException("a client calls one address or one service: uri " + uri +
                ", service " + service);
        }
        allowedExceptions = List.copyOf(allowedExceptions);
    }

    /** The name the client goes by: its name, else its address. */
    String label()
    {
        return name.isEmpty() && uri != null ? uri : name;
    }

    /**
     * The service a client calls every instance of, through the resolver given or the application's
     * {@link io.xio.cluster.EndpointResolver} bean.
     *
     * @param serviceId the service's id in discovery, or the name its resolver watches (a DNS target)
     * @param resource the resource the instances export the service as
     * @param balancer how an attempt picks an instance
     * @param transports the transports of an instance's portals the client takes, in order of preference (see
     *                   {@link io.xio.cluster.TransportPreference})
     * @param resolver the resolver to watch instead of the application's {@code EndpointResolver} bean (the
     *                 context's shared {@link DnsEndpointResolver} for a DNS name), or null for that bean; whoever
     *                 made it closes it, never the client, so that clients may share it
     */
    public record Service(String serviceId, String resource, LoadBalancer balancer, List<String> transports,
        @Nullable EndpointResolver resolver)
    {
        /** Copies the list. */
        public Service
        {
            transports = List.copyOf(transports);
        }

        /** A service found through the application's {@code EndpointResolver} bean. */
        public Service(final String serviceId, final String resource, final LoadBalancer balancer,
            final List<String> transports)
        {
            this(serviceId, resource, balancer, transports, null);
        }
    }

    /**
     * How an idempotent call is tried again (see {@link RetryPolicy}).
     *
     * @param maxAttempts the most attempts of one call, the first included
     * @param initialBackoff the first wait between attempts
     * @param maxBackoff the longest wait between attempts, at least {@code initialBackoff}
     */
    public record Retry(int maxAttempts, Duration initialBackoff, Duration maxBackoff)
    {
        /** Checks that the waits grow, not shrink. */
        public Retry
        {
            if (initialBackoff.compareTo(maxBackoff) > 0)
            {
                throw new IllegalArgumentException("retry initial backoff " + initialBackoff +
                    " exceeds the max backoff " + maxBackoff);
            }
        }
    }
}
