package io.xio.spring.client;

import io.xio.engine.Message;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.method.Invocation;
import io.xio.spring.method.ServiceMethod;
import org.jspecify.annotations.Nullable;

import java.nio.ByteBuffer;

/**
 * Turns the answer of a client call into its proxy method's result: nothing for a void method, a copy of the first
 * data segment for a segment result, else the codec's decoding of the header. Runs on the thread that holds the
 * answer, a context thread on the engine's listener path, so a codec must not block or make a blocking xio call
 * while decoding. Immutable; any thread.
 */
final class ResponseDecoder
{
    private final XioCodec codec;

    ResponseDecoder(final XioCodec codec)
    {
        this.codec = codec;
    }

    @Nullable Object decode(final ServiceMethod call, final Message response)
    {
        if (call.returnKind() == ServiceMethod.ReturnKind.VOID || call.resultType() == Void.class)
        {
            return null;
        }
        if (call.resultIsSegment())
        {
            if (response.segmentCount() == 0)
            {
                return null;
            }
            // Results are copies: the message goes back to the pool when this call returns.
            if (call.resultType() == byte[].class)
            {
                return Invocation.fromSegment(response, 0, byte[].class);
            }
            final ByteBuffer segment = response.segment(0);
            final ByteBuffer copy = ByteBuffer.allocate(segment.remaining());
            copy.put(segment).flip();
            return copy;
        }
        return codec.decode(response.header(), call.resultType());
    }
}
