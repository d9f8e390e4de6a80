package io.xio.spring.client;

import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.support.Backoff;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.method.Invocation;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.observation.XioInstrumentation.CallRecorder;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import java.nio.ByteBuffer;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client call's request: the layout of an invocation whichever way its header is encoded, data segments copied
 * only for a caller that will not wait, and the metadata kept for a resend as the proxy made it.
 */
class RequestEncoderTest
{
    private static final XioCodec CODEC = new JacksonXioCodec(new JsonMapper());
    private static final Backoff BACKOFF = Backoff.of(Duration.ofMillis(1), Duration.ofMillis(2));

    interface Api
    {
        String mixed(String name, byte[] data, int count);

        void store(byte[] data, ByteBuffer more);
    }

    @Test
    void aRequestHasTheLayoutOfAnInvocationHeaderAndItsSegments() throws Exception
    {
        final ClientMethodState state = state("mixed", String.class, byte[].class, int.class);
        final Object[] arguments = {"a", new byte[] {1, 2}, 3};

        final Outbound message = encoder(1).encode(state, arguments, new CallerWaiter(), false);

        assertThat(message.header()).isEqualTo(invocationHeader(state, arguments));
        assertThat(message.segmentCount()).isEqualTo(1);
        assertThat(message.segment(0)).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2}));
    }

    @Test
    void aCodecThatCallsAProxyWhileEncodingGetsTheSameHeaderWithoutTheThreadsBuffer() throws Exception
    {
        final ClientMethodState state = state("mixed", String.class, byte[].class, int.class);
        final Object[] arguments = {"b", new byte[0], 4};
        final CallerWaiter waiter = new CallerWaiter();
        waiter.encoding = true; // the outer call's encoding holds the buffer

        final Outbound message = encoder(1).encode(state, arguments, waiter, false);

        assertThat(message.header()).isEqualTo(invocationHeader(state, arguments));
        assertThat(waiter.out.size()).isZero();
    }

    @Test
    void aMethodOfSegmentsOnlySendsItsSharedHeader() throws Exception
    {
        final ClientMethodState state = state("store", byte[].class, ByteBuffer.class);

        final Outbound message = encoder(1).encode(state, new Object[] {new byte[] {1}, ByteBuffer.allocate(2)},
            new CallerWaiter(), false);

        assertThat(message.header()).isSameAs(state.sharedHeader);
        assertThat(message.segmentCount()).isEqualTo(2);
    }

    @Test
    void segmentsAreCopiesOnlyForACallerThatWillNotWait() throws Exception
    {
        final ClientMethodState state = state("store", byte[].class, ByteBuffer.class);
        final byte[] data = {1, 2, 3};
        final Object[] arguments = {data, ByteBuffer.wrap(new byte[] {4})};
        final Outbound shared = encoder(1).encode(state, arguments, new CallerWaiter(), false);
        final Outbound copied = encoder(1).encode(state, arguments, new CallerWaiter(), true);

        data[0] = 9; // the caller reuses its array once the call returned

        assertThat(shared.segment(0).get(0)).isEqualTo((byte)9);
        assertThat(copied.segment(0)).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        assertThat(copied.segment(1)).isEqualTo(ByteBuffer.wrap(new byte[] {4}));
    }

    @Test
    void metadataIsKeptForAResendOnlyByAClientThatRetries() throws Exception
    {
        final Metadata metadata = new Metadata().put("tenant", "t1");
        final ServiceMethod call = ServiceMethod.of(Api.class.getMethod("store", byte[].class, ByteBuffer.class),
            Api.class);

        assertThat(encoder(1).keptForResend(call, metadata)).as("one attempt only").isNull();
        assertThat(encoder(3).keptForResend(call, new Metadata())).as("nothing to keep").isNull();
        assertThat(encoder(3).keptForResend(call, null)).isNull();
        final Metadata kept = encoder(3).keptForResend(call, metadata);
        assertThat(kept).isNotSameAs(metadata);
        assertThat(kept.get("tenant")).isEqualTo("t1");
    }

    @Test
    void anotherAttemptSendsTheSameDataWithAFreshCopyOfTheKeptMetadata()
    {
        final ByteBuffer header = ByteBuffer.wrap(new byte[] {7});
        final ByteBuffer segment = ByteBuffer.wrap(new byte[] {8});
        final Outbound first = Outbound.of(header, segment).metadata(new Metadata().put("added", "by the engine"));
        final Metadata kept = new Metadata().put("tenant", "t1");

        final Outbound again = RequestEncoder.again(first, kept);

        assertThat(again).isNotSameAs(first);
        assertThat(again.header()).isSameAs(header);
        assertThat(again.segment(0)).isSameAs(segment);
        assertThat(again.metadata()).isNotSameAs(kept);
        assertThat(again.metadata().get("tenant")).isEqualTo("t1");
        assertThat(again.metadata().get("added")).isNull();
        assertThat(RequestEncoder.again(first, null).metadata()).isNull();
    }

    private static RequestEncoder encoder(final int maxAttempts)
    {
        return new RequestEncoder(CODEC, new RetryPolicy(maxAttempts, BACKOFF));
    }

    private static ClientMethodState state(final String name, final Class<?>... parameters) throws Exception
    {
        return new ClientMethodState(ServiceMethod.of(Api.class.getMethod(name, parameters), Api.class),
            CallRecorder.NONE, CODEC, Duration.ofSeconds(1));
    }

    private static ByteBuffer invocationHeader(final ClientMethodState state, final Object[] arguments)
    {
        final ServiceMethod call = state.call;
        return Invocation.header(call.wireName(),
            CODEC.encodeArguments(Invocation.withoutSegments(call, arguments), call.parameterTypes()));
    }
}
