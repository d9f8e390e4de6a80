package io.xio.spring.exactlyonce;

import io.xio.ledger.LedgerAnswer;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorBody;
import io.xio.spring.method.Invocation;
import io.xio.spring.method.ServiceMethod;
import io.xio.spring.service.XioExceptionHandlers;
import org.jspecify.annotations.Nullable;

import java.nio.ByteBuffer;

/**
 * How an exactly-once method's answer is kept in the ledger and read back. A result is stored as the server's codec
 * encodes it (a call in JSON is answered by decoding it and encoding that in JSON, so every caller gets its own
 * format); a {@code byte[]} or {@code ByteBuffer} result, which travels as a data segment, as its bytes after one
 * byte telling null from empty; a void method's as nothing. An error whose transaction committed is stored as it was
 * answered: its type, then its message and code as the answer carries them ({@link XioErrorBody}). Stateless.
 */
final class StoredAnswers
{
    private static final byte NULL = 0;
    private static final byte BYTES = 1;

    private StoredAnswers()
    {
    }

    /** The bytes stored for {@code value}, the result of {@code method}. */
    static byte[] value(final ServiceMethod method, final XioCodec codec, final @Nullable Object value)
    {
        if (method.returnKind() == ServiceMethod.ReturnKind.VOID)
        {
            return new byte[0];
        }
        if (method.resultIsSegment())
        {
            if (value == null)
            {
                return new byte[] {NULL};
            }
            final ByteBuffer data = Invocation.asBuffer(value).duplicate(); // the answer still sends the original
            final byte[] stored = new byte[1 + data.remaining()];
            stored[0] = BYTES;
            data.get(stored, 1, stored.length - 1);
            return stored;
        }
        return codec.encode(value, method.resultType());
    }

    /**
     * {@link #value(ServiceMethod, XioCodec, Object) The bytes stored} for {@code value}, once they are known to
     * decode back, as every replay of the key will decode them. An answer that encodes but does not decode (a result
     * declared as an interface or an abstract class without type information, which Jackson writes but cannot
     * read) would commit with the call, and then fail each of its replays for as long as the ledger keeps it. The
     * codec is the application's bean, and whether it reads a type back shows only when it tries (Jackson builds an
     * abstract type's reader, which fails on its first value), so each answer is checked, not its type at start-up.
     *
     * @throws IllegalStateException naming the method and the type, when the bytes do not decode back
     */
    static byte[] replayable(final ServiceMethod method, final XioCodec codec, final @Nullable Object value)
    {
        final byte[] stored = value(method, codec, value);
        if (method.returnKind() == ServiceMethod.ReturnKind.VOID || method.resultIsSegment())
        {
            return stored;
        }
        try
        {
            codec.decode(ByteBuffer.wrap(stored), method.resultType());
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalStateException(method.wireName() + " answered a value that the server's codec " +
                "encodes but cannot decode back as " + method.resultType().getTypeName() + ", so no replay of its " +
                "idempotency key could answer: the call was rolled back. Declare a result type the codec reads " +
                "back (a concrete class, or one with type information, such as Jackson's @JsonTypeInfo)", ex);
        }
        return stored;
    }

    /** The result {@code stored} holds, as {@link #value} stored it for {@code method}. */
    static @Nullable Object value(final ServiceMethod method, final XioCodec codec, final byte[] stored)
    {
        if (method.returnKind() == ServiceMethod.ReturnKind.VOID)
        {
            return null;
        }
        if (method.resultIsSegment())
        {
            if (stored.length == 0 || stored[0] != BYTES)
            {
                return null;
            }
            final byte[] bytes = java.util.Arrays.copyOfRange(stored, 1, stored.length);
            return method.resultType() == byte[].class ? bytes : ByteBuffer.wrap(bytes);
        }
        return codec.decode(ByteBuffer.wrap(stored), method.resultType());
    }

    /** The bytes of an error answer stored for {@code answer}. */
    static byte[] error(final XioExceptionHandlers.Answer answer)
    {
        return LedgerAnswer.error(answer.type(), XioErrorBody.encode(answer.error())).bytes();
    }

    /** The error answer {@code stored} holds, as {@link #error(XioExceptionHandlers.Answer)} stored it. */
    static XioExceptionHandlers.Answer error(final LedgerAnswer stored)
    {
        final String body = stored.errorMessage();
        return new XioExceptionHandlers.Answer(stored.errorType(),
            XioError.of(XioErrorBody.code(body), XioErrorBody.message(body)));
    }
}
