package io.xio.spring.client;

import io.xio.engine.CallOptions;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.method.Invocation;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import org.jspecify.annotations.Nullable;

import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * One method's share of every call: its header's name part (and its whole header when every argument is a
 * data segment, so nothing is encoded per call) and the call options of a call with its usual deadline.
 * Immutable but for its pool of requests, which is thread-safe; any thread.
 */
final class ClientMethodState
{
    final ServiceMethod call;
    final CallRecorder recorder;
    final byte[] name;
    /**
     * The whole header when the codec has nothing per call to encode (else null): one buffer every call shares, which
     * xio reads without moving its position.
     */
    final @Nullable ByteBuffer sharedHeader;
    final int segmentCount;
    final Duration timeout;
    private final CallOptions options;
    private final CallOptions contextOptions;
    /**
     * The requests of asynchronous calls of a method with a constant header, each back here once the engine told
     * its call's outcome (null for other methods): outstanding calls reuse them instead of a message each.
     */
    final org.agrona.concurrent.@Nullable ManyToManyConcurrentArrayQueue<SegmentRequest> free;

    ClientMethodState(final ServiceMethod call, final CallRecorder recorder, final XioCodec codec,
        final Duration clientTimeout)
    {
        this.call = call;
        this.recorder = recorder;
        final byte[] wireName = call.wireName().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        this.name = new byte[2 + wireName.length];
        name[0] = (byte)(wireName.length >>> 8);
        name[1] = (byte)wireName.length;
        System.arraycopy(wireName, 0, name, 2, wireName.length);
        int segmentArguments = 0;
        for (final boolean segment : call.segments())
        {
            segmentArguments += segment ? 1 : 0;
        }
        this.segmentCount = segmentArguments;
        // Null arguments stand for segments: with only segments, the encoded arguments never change.
        final byte[] constantHeader = segmentArguments == call.segments().length
            ? Invocation.header(call.wireName(),
                codec.encodeArguments(new Object[segmentArguments], call.parameterTypes())).array()
            : null;
        this.sharedHeader = constantHeader != null ? ByteBuffer.wrap(constantHeader) : null;
        this.free = sharedHeader != null && call.answersLater()
            ? new org.agrona.concurrent.ManyToManyConcurrentArrayQueue<>(SegmentRequest.POOLED)
            : null;
        this.timeout = call.timeout() != null ? call.timeout() : clientTimeout;
        this.options = make(timeout, true);
        this.contextOptions = make(timeout, false);
    }

    /**
     * The options of a call with {@code limit} made on a context thread or not (there it must not wait for room in
     * the window): the shared ones when {@code limit} is the usual deadline itself.
     */
    CallOptions options(final Duration limit, final boolean onContextThread)
    {
        return limit != timeout ? make(limit, !onContextThread) : onContextThread ? contextOptions : options;
    }

    private CallOptions make(final Duration limit, final boolean waitWhenFull)
    {
        // An exactly-once call may go to another server with its key: on a session with no connection up it fails
        // at once like an idempotent call, where another instance could take it (AttemptSessions.elsewhere).
        return CallOptions.timeout(limit).withReceipt(call.receipt()).withWaitWhenFull(waitWhenFull)
            .withIdempotent(call.idempotent() || call.exactlyOnce()).withExactlyOnce(call.exactlyOnce());
    }
}
