package io.xio.spring.http;

import io.xio.spring.error.XioErrorCode;

/**
 * The HTTP status of each xio error code, as gRPC's HTTP/JSON transcoding maps its status codes
 * ({@code google.rpc.Code}): a client that knows either reads the same meaning. Stateless.
 */
public final class XioHttpStatus
{
    /** What nginx and gRPC's transcoding answer for a call its client cancelled: no standard status says it. */
    public static final int CLIENT_CLOSED_REQUEST = 499;

    private XioHttpStatus()
    {
    }

    /** The HTTP status a call that failed with {@code code} is answered with. */
    public static int of(final XioErrorCode code)
    {
        return switch (code)
        {
            case INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE -> 400;
            case UNAUTHENTICATED -> 401;
            case PERMISSION_DENIED -> 403;
            case NOT_FOUND -> 404;
            case ALREADY_EXISTS, ABORTED -> 409;
            case RESOURCE_EXHAUSTED -> 429;
            case CANCELLED -> CLIENT_CLOSED_REQUEST;
            case UNIMPLEMENTED -> 501;
            case UNAVAILABLE -> 503;
            case DEADLINE_EXCEEDED -> 504;
            case UNKNOWN, INTERNAL, DATA_LOSS -> 500;
        };
    }
}
