package io.xio.engine.protocol;

/**
 * Frame types of the wire protocol (see {@code docs/protocol.md}). Codes are stable: never reuse one.
 * Thread-safe (constants only).
 */
public final class FrameType
{
    public static final int SETUP = 1;
    public static final int SETUP_ACCEPT = 2;
    public static final int SETUP_REJECT = 3;
    public static final int SETUP_REDIRECT = 4;
    public static final int ATTACH = 5;
    public static final int ATTACH_ACCEPT = 6;
    public static final int ATTACH_REJECT = 7;
    public static final int REQUEST = 8;
    public static final int RESPONSE = 9;
    public static final int RECEIPT = 10;
    public static final int CANCEL = 11;
    public static final int CANCEL_RESULT = 12;
    public static final int KEEPALIVE = 13;
    /**
     * Credit for a stream, from its receiver: {@code i64 received, i64 limitSequence, i64 limitBytes}, absolute
     * ({@link StreamFrames}).
     */
    public static final int CREDIT = 14;
    public static final int DATA_DESCRIPTOR = 15;
    public static final int CLOSE = 16;
    /** The requester has a whole RESPONSE that asked for an acknowledgement: the responder may drop its copy. */
    public static final int RESPONSE_ACK = 17;
    /**
     * Server to client, on a session: finish what is in flight, send nothing new here, go elsewhere (or to the
     * portals named). Body: {@code list portals, string reason}.
     */
    public static final int GOAWAY = 18;
    /**
     * One message of a stream, or the end of one direction of it ({@link FrameFlags#END}); the application-header area
     * starts with the message's {@code i64} sequence number ({@link StreamFrames}).
     */
    public static final int STREAM_DATA = 19;

    /** One past the highest code in use. */
    public static final int LIMIT = 20;

    private static final String[] NAMES = {
        "?", "SETUP", "SETUP_ACCEPT", "SETUP_REJECT", "SETUP_REDIRECT", "ATTACH", "ATTACH_ACCEPT", "ATTACH_REJECT",
        "REQUEST", "RESPONSE", "RECEIPT", "CANCEL", "CANCEL_RESULT", "KEEPALIVE", "CREDIT", "DATA_DESCRIPTOR", "CLOSE",
        "RESPONSE_ACK", "GOAWAY", "STREAM_DATA"
    };

    private FrameType()
    {
    }

    public static boolean isKnown(final int type)
    {
        return type > 0 && type < LIMIT;
    }

    /** Whether {@code type} answers a SETUP or an ATTACH. */
    public static boolean isHandshakeAnswer(final int type)
    {
        return type == SETUP_ACCEPT || type == SETUP_REJECT || type == SETUP_REDIRECT || type == ATTACH_ACCEPT ||
            type == ATTACH_REJECT;
    }

    public static String name(final int type)
    {
        return isKnown(type) ? NAMES[type] : "UNKNOWN(" + type + ")";
    }
}
