package io.xio.spring.security;

import io.xio.engine.Credentials;
import io.xio.engine.SessionAcceptor;
import io.xio.engine.SetupDecision;
import io.xio.engine.SetupRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationServiceException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The portals' {@link SessionAcceptor} when Spring Security is configured: reads what a set-up presents with the
 * first {@link XioAuthenticationExtractor} that finds something, has the {@link AuthenticationManager} check it,
 * and accepts the session as the resulting {@link Authentication} (then the {@code SecurityContext} of every call
 * on it), or refuses it as unauthenticated: the client learns only that authentication failed, the reason goes to
 * the server's log (rate-limited by the engine). A set-up that presents nothing is refused when authentication is
 * required, else accepted as anonymous; one that presents credentials or a client certificate that no extractor
 * understands is refused either way. A manager that cannot decide ({@link AuthenticationServiceException}: an
 * identity provider down) gets the set-up rejected as "authentication unavailable", not counted as the peer's
 * failure; one that breaks otherwise gets it refused as unauthenticated. Both are logged once a minute at most.
 *
 * <p>Runs on the portal's context thread, inside the set-up, like every acceptor: the engine's API is synchronous
 * and the context serves every other session of its portal meanwhile. So the manager must not block: a
 * {@code JwtDecoder} with a local key, or a JWK set that is cached (and refreshed before it expires), an in-memory
 * or cached user store. A password hash is CPU work that the set-up pays once per session, not per call; a
 * deliberately slow one (bcrypt at a high cost) holds the context as long. An authentication that took longer than
 * {@link #SLOW_NANOS} is logged, at most once a minute, naming the time it took.
 *
 * <p>Thread-safe; called on context threads.
 */
public final class XioAuthenticatingSessionAcceptor implements SessionAcceptor
{
    /** An authentication slower than this is worth a warning: the context served nothing else meanwhile. */
    public static final long SLOW_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private static final Logger LOG = LoggerFactory.getLogger(XioAuthenticatingSessionAcceptor.class);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final List<XioAuthenticationExtractor> extractors;
    private final AuthenticationManager manager;
    private final boolean requireAuthentication;
    private final AtomicLong lastSlowWarning = new AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS);
    private final AtomicLong lastUnavailableWarning = new AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS);
    private final AtomicLong lastFailureWarning = new AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS);

    /**
     * @param extractors in the order they are asked
     * @param manager checks what an extractor found
     * @param requireAuthentication whether a set-up that presents nothing is refused
     */
    public XioAuthenticatingSessionAcceptor(final List<XioAuthenticationExtractor> extractors,
        final AuthenticationManager manager, final boolean requireAuthentication)
    {
        this.extractors = List.copyOf(extractors);
        this.manager = manager;
        this.requireAuthentication = requireAuthentication;
    }

    @Override
    public SetupDecision onSetup(final SetupRequest request)
    {
        final long start = System.nanoTime();
        try
        {
            for (final XioAuthenticationExtractor extractor : extractors)
            {
                final Authentication presented = extractor.extract(request);
                if (presented != null)
                {
                    final Authentication authenticated = manager.authenticate(presented);
                    if (authenticated == null || !authenticated.isAuthenticated())
                    {
                        return SetupDecision.unauthenticated(kind(presented) + " not authenticated");
                    }
                    return SetupDecision.accept(authenticated);
                }
            }
            final boolean certificate = request.peer() != null && request.peer().certificate() != null;
            if (certificate || request.credentials() != null && !(request.credentials() instanceof Credentials.None))
            {
                // The peer claims to be someone that nothing here can check: optional authentication does not make
                // it anonymous.
                return SetupDecision.unauthenticated("credentials no extractor understands (credentials: " +
                    request.credentials() + ", client certificate: " + certificate + ")");
            }
            return requireAuthentication ? SetupDecision.unauthenticated("no credentials presented")
                : SetupDecision.accept();
        }
        catch (final AuthenticationServiceException ex)
        {
            // The manager could not decide (an identity provider down): not the peer's failure, so not counted
            // against it; the client may try again later.
            warnOnce(lastUnavailableWarning, "authentication unavailable, session set-ups refused meanwhile: {}", ex);
            return SetupDecision.reject("authentication unavailable");
        }
        catch (final AuthenticationException ex)
        {
            // Its message is for the server's log only (ServerHandshake sends "authentication failed").
            return SetupDecision.unauthenticated(ex.getClass().getSimpleName() + ": " + ex.getMessage());
        }
        catch (final RuntimeException ex)
        {
            // A manager or extractor that broke on what the peer sent: refused, never let through; logged once
            // per interval, as a peer may send such set-ups in a loop.
            warnOnce(lastFailureWarning, "authenticating a session set-up failed, refused as unauthenticated: {}",
                ex);
            return SetupDecision.unauthenticated("authentication failed: " + ex.getClass().getSimpleName());
        }
        finally
        {
            warnIfSlow(System.nanoTime() - start);
        }
    }

    /** Logs {@code ex} at most once per {@link #WARN_INTERVAL_NANOS} for {@code last}'s kind. */
    private static void warnOnce(final AtomicLong last, final String format, final RuntimeException ex)
    {
        final long now = System.nanoTime();
        final long before = last.get();
        if (now - before >= WARN_INTERVAL_NANOS && last.compareAndSet(before, now))
        {
            LOG.warn(format, ex.toString(), ex);
        }
    }

    private static String kind(final Authentication presented)
    {
        return presented.getClass().getSimpleName();
    }

    private void warnIfSlow(final long tookNanos)
    {
        final long now = System.nanoTime();
        final long last = lastSlowWarning.get();
        if (tookNanos > SLOW_NANOS && now - last >= WARN_INTERVAL_NANOS && lastSlowWarning.compareAndSet(last, now))
        {
            LOG.warn("authenticating a session set-up took {} ms on the portal's context thread ({}), which served " +
                "nothing else meanwhile: use an AuthenticationManager that does not block (a JwtDecoder with a " +
                "local or cached key, a cached user store)", TimeUnit.NANOSECONDS.toMillis(tookNanos),
                Thread.currentThread().getName());
        }
    }
}
