package io.xio.spring.error;

import org.jspecify.annotations.Nullable;

import java.util.Objects;

/**
 * The error a caller gets for a failed call: a code and a message for the caller's eyes (so no stack traces,
 * no internals). What an {@link io.xio.annotation.XioExceptionHandler} method returns. Immutable.
 *
 * @param code what kind of failure it was
 * @param message the text the caller sees; cut to {@link XioErrorBody#MAX_MESSAGE_BYTES} bytes of UTF-8 on the
 *        wire, null read as empty
 */
public record XioError(XioErrorCode code, String message)
{
    /** Takes a null message as empty: {@link #message()} is never null. */
    public XioError(final XioErrorCode code, final @Nullable String message)
    {
        this.code = Objects.requireNonNull(code, "code");
        this.message = message == null ? "" : message;
    }

    /** The error with {@code code} and {@code message} (null read as empty). */
    public static XioError of(final XioErrorCode code, final @Nullable String message)
    {
        return new XioError(code, message);
    }
}
