package io.xio.ledger;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A call's answer as the ledger keeps it: a value, or an application error whose transaction committed, each as
 * bytes the caller chose (the ledger never looks inside). An error made by {@link #error(Throwable)} holds the
 * exception's class name and message as {@code type\nmessage} in UTF-8, the form of the engine's error answers,
 * which {@link #errorType()} and {@link #errorMessage()} read back. Immutable; any thread.
 */
public final class LedgerAnswer
{
    /** What an answer is, and its code in the ledger's {@code outcome} column. */
    public enum Kind
    {
        /** The work returned: the bytes are its value. */
        VALUE(1),
        /** The work threw, and its transaction committed all the same: the bytes describe the error. */
        ERROR(2);

        private final int code;

        Kind(final int code)
        {
            this.code = code;
        }

        /** The value stored in the {@code outcome} column. */
        public int code()
        {
            return code;
        }

        /**
         * The kind stored as {@code code}.
         *
         * @throws IllegalStateException for a code no answer has (a row this version did not write)
         */
        public static Kind of(final int code)
        {
            for (final Kind kind : values())
            {
                if (kind.code == code)
                {
                    return kind;
                }
            }
            throw new IllegalStateException("no ledger answer has outcome " + code);
        }
    }

    private static final byte[] NONE = new byte[0];

    private final Kind kind;
    private final byte[] bytes;

    private LedgerAnswer(final Kind kind, final byte[] bytes)
    {
        this.kind = kind;
        this.bytes = bytes;
    }

    /** A value answer; the array is kept, not copied (do not change it afterwards). Null is an empty value. */
    public static LedgerAnswer value(final byte[] bytes)
    {
        return new LedgerAnswer(Kind.VALUE, bytes == null ? NONE : bytes);
    }

    /** An error answer of the caller's own encoding; the array is kept, not copied. */
    public static LedgerAnswer error(final byte[] bytes)
    {
        return new LedgerAnswer(Kind.ERROR, bytes == null ? NONE : bytes);
    }

    /** An error answer naming {@code type} with {@code message}, as {@code type\nmessage} in UTF-8. */
    public static LedgerAnswer error(final String type, final String message)
    {
        return error((type + '\n' + (message == null ? "" : message)).getBytes(StandardCharsets.UTF_8));
    }

    /** An error answer naming the class of {@code error} and its message ({@link #error(String, String)}). */
    public static LedgerAnswer error(final Throwable error)
    {
        return error(error.getClass().getName(), error.getMessage());
    }

    /** An answer of {@code kind} holding {@code bytes}: what a ledger read back. */
    public static LedgerAnswer of(final Kind kind, final byte[] bytes)
    {
        return kind == Kind.VALUE ? value(bytes) : error(bytes);
    }

    public Kind kind()
    {
        return kind;
    }

    public boolean isError()
    {
        return kind == Kind.ERROR;
    }

    /** The bytes themselves, not a copy: do not change them. */
    public byte[] bytes()
    {
        return bytes;
    }

    /** An error's type: its bytes up to the first newline (all of them when there is none), in UTF-8. */
    public String errorType()
    {
        final int end = newline();
        return new String(bytes, 0, end < 0 ? bytes.length : end, StandardCharsets.UTF_8);
    }

    /** An error's message: its bytes after the first newline (empty when there is none), in UTF-8. */
    public String errorMessage()
    {
        final int end = newline();
        return end < 0 ? "" : new String(bytes, end + 1, bytes.length - end - 1, StandardCharsets.UTF_8);
    }

    private int newline()
    {
        for (int i = 0; i < bytes.length; i++)
        {
            if (bytes[i] == '\n')
            {
                return i;
            }
        }
        return -1;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof LedgerAnswer answer && answer.kind == kind && Arrays.equals(answer.bytes, bytes);
    }

    @Override
    public int hashCode()
    {
        return 31 * kind.hashCode() + Arrays.hashCode(bytes);
    }

    @Override
    public String toString()
    {
        return kind == Kind.VALUE ? "value of " + bytes.length + " bytes" : "error " + errorType();
    }
}
