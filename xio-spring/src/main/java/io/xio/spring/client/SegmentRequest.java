package io.xio.spring.client;

import io.xio.engine.Outbound;
import io.xio.spring.method.Invocation;
import org.jspecify.annotations.Nullable;

import java.nio.ByteBuffer;

/**
 * The request message of a method whose header is constant (every argument a data segment), sent again and
 * again: a blocking thread's (one call at a time), or one of its method's pool of asynchronous ones, taken by
 * a call and given back once the engine told that call's outcome. A {@code byte[]} argument of at most
 * {@value #KEPT_ARRAY_BYTES} bytes keeps its wrapping buffer, so a caller that sends the same array again costs
 * no buffer either. Used by one call at a time; the pool hands it between threads.
 */
final class SegmentRequest
{
    /** How many idle requests a method keeps: more calls than this outstanding make the rest anew. */
    static final int POOLED = 256;
    /** Larger arrays are not kept referenced by an idle request. */
    static final int KEPT_ARRAY_BYTES = 1024;
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);
    private final ByteBuffer[] segments;
    /** Per segment, the small array last sent there and its wrap, else null. */
    private final byte[] @Nullable [] arrays;
    private final @Nullable ByteBuffer[] wraps;
    private final Outbound message;

    SegmentRequest(final ClientMethodState state)
    {
        segments = new ByteBuffer[state.segmentCount];
        java.util.Arrays.fill(segments, NOTHING);
        arrays = new byte[state.segmentCount][];
        wraps = new ByteBuffer[state.segmentCount];
        message = state.segmentCount == 0 ? Outbound.of(state.sharedHeader)
            : Outbound.of(state.sharedHeader, segments);
    }

    /** An idle request of {@code state}'s method, or a new one when all are out. */
    static SegmentRequest take(final ClientMethodState state)
    {
        final SegmentRequest idle = state.free.poll();
        return idle != null ? idle : new SegmentRequest(state);
    }

    /** The message of a call with {@code arguments}: its segments set, no metadata. */
    Outbound fill(final ClientMethodState state, final @Nullable Object[] arguments)
    {
        final boolean[] isSegment = state.call.segments();
        int at = 0;
        for (int i = 0; i < isSegment.length; i++)
        {
            if (isSegment[i])
            {
                segments[at] = segment(at, arguments[i]);
                at++;
            }
        }
        return message.metadata(null);
    }

    private ByteBuffer segment(final int at, final @Nullable Object argument)
    {
        if (argument instanceof byte[] bytes && bytes.length <= KEPT_ARRAY_BYTES)
        {
            if (arrays[at] != bytes)
            {
                arrays[at] = bytes;
                wraps[at] = ByteBuffer.wrap(bytes); // xio moves no position: the wrap stays as it was made
            }
            return wraps[at];
        }
        arrays[at] = null;
        wraps[at] = null;
        return Invocation.asBuffer(argument);
    }

    /** Back to {@code state}'s pool (xio no longer reads it), holding no large buffer of the call's. */
    void release(final ClientMethodState state)
    {
        for (int i = 0; i < segments.length; i++)
        {
            if (segments[i] != wraps[i])
            {
                segments[i] = NOTHING;
            }
        }
        message.metadata(null);
        state.free.offer(this);
    }
}
