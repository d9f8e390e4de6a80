package io.xio.spring.client;

import io.xio.engine.Session;
import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;

/**
 * Where each attempt of a client proxy's call takes its session: the one session of a client given a URI
 * ({@link UriSessions}), or the session of the instance a {@link io.xio.cluster.ServiceClient} picks for a
 * client that names a service ({@link ServiceSessions}), so that a retried attempt lands on another instance.
 * Thread-safe; {@link #session()} never blocks.
 */
interface ClientSessions
{
    /** What the client calls, for messages: its address, or {@code service <id>}. */
    String target();

    /** The resource the sessions are opened to. */
    String resource();

    /** The transport the observations name: the address's scheme, or {@code service} for a service client. */
    String transport();

    /** The session for the next attempt, opened if need be; a future that never blocks its caller. */
    CompletableFuture<Session> session();

    /** Whether another session than the next attempt's could take a call: a service with more than one instance up. */
    default boolean elsewhere()
    {
        return false;
    }

    /** The last failure opening a session, or null. */
    @Nullable String lastFailure();

    /** Where the sessions stand; never blocks. */
    XioClientStatus status(String name, Class<?> api);

    /** Lets go of what the source keeps (a service client's watch and sessions). */
    default void close()
    {
    }
}
