package io.xio.spring.error;

import org.jspecify.annotations.Nullable;

/**
 * What kind of failure a call met, as gRPC's canonical status codes name them (without {@code OK}): the code a
 * service's {@link io.xio.annotation.XioExceptionHandler} maps an exception to, and that its caller reads from
 * {@link io.xio.spring.client.XioRemoteException#code()}. It travels by name.
 */
public enum XioErrorCode
{
    /** The caller gave up on the call. */
    CANCELLED,
    /** A failure no handler classified: an exception thrown by the service and not mapped. */
    UNKNOWN,
    /** The arguments are wrong whatever the state of the service. */
    INVALID_ARGUMENT,
    /** The call's deadline passed before it finished. */
    DEADLINE_EXCEEDED,
    /** What the call names does not exist. */
    NOT_FOUND,
    /** What the call would create exists already. */
    ALREADY_EXISTS,
    /** The caller is known and may not do this. */
    PERMISSION_DENIED,
    /** A quota or a resource ran out (a rate limit, space). */
    RESOURCE_EXHAUSTED,
    /** The service is not in the state the call needs; retrying the same call will not help. */
    FAILED_PRECONDITION,
    /** The call conflicted with another (a transaction aborted); retrying a higher-level sequence may help. */
    ABORTED,
    /** An argument is past a valid range, such as reading past the end. */
    OUT_OF_RANGE,
    /** The service does not implement the call. */
    UNIMPLEMENTED,
    /** The service broke an invariant of its own. */
    INTERNAL,
    /** The service cannot take the call now; retrying later may succeed. */
    UNAVAILABLE,
    /** Data was lost or corrupted. */
    DATA_LOSS,
    /** The caller did not prove who it is. */
    UNAUTHENTICATED;

    /** The code named {@code name} on the wire, or null when it names none (text from another server). */
    public static @Nullable XioErrorCode named(final String name)
    {
        for (final XioErrorCode code : values())
        {
            if (code.name().equals(name))
            {
                return code;
            }
        }
        return null;
    }
}
