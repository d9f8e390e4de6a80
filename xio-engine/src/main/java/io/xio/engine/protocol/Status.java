package io.xio.engine.protocol;

/** Status codes carried by RESPONSE frames and by the STREAM_DATA that ends a stream. Thread-safe (constants only). */
public final class Status
{
    public static final int OK = 0;
    /** The handler failed; the application header carries "type\nmessage" in UTF-8. */
    public static final int APPLICATION_ERROR = 1;
    /**
     * The receiver turned the request away unrun: too many of the session's requests executing, or its handler
     * refused it (a full queue).
     */
    public static final int BACK_PRESSURE = 2;
    /** This side has no handler for requests on the session (a client session opened without one). */
    public static final int NO_HANDLER = 3;
    /** A retransmitted request had executed, but its response was too large to keep for a resend. */
    public static final int RESPONSE_LOST = 4;
    /** A retransmitted request is older than the receiver's deduplication window. */
    public static final int OUTSIDE_WINDOW = 5;
    /** The request reached its caller's deadline before it ran, so it was not run. */
    public static final int DEADLINE_EXCEEDED = 6;
    /** The side that accepted a stream cancelled it (the end of a stream only). */
    public static final int CANCELLED = 7;

    private Status()
    {
    }

    public static String describe(final int status)
    {
        switch (status)
        {
            case OK: return "ok";
            case APPLICATION_ERROR: return "application error";
            case BACK_PRESSURE: return "receiver too busy: too many requests executing or queued";
            case NO_HANDLER: return "no handler for requests on this session";
            case RESPONSE_LOST: return "request executed, but its response was lost with the connection";
            case OUTSIDE_WINDOW: return "retransmitted request is outside the deduplication window";
            case DEADLINE_EXCEEDED: return "the caller's deadline passed before the request ran";
            case CANCELLED: return "the stream was cancelled by the side that accepted it";
            default: return "status " + status;
        }
    }
}
