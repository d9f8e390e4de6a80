package io.xio.spring.error;

import org.jspecify.annotations.Nullable;

/**
 * The message part of an APPLICATION_ERROR answer as the Spring layer writes it: the message, cut to
 * {@link #MAX_MESSAGE_BYTES} bytes of UTF-8, then a line with the {@link XioErrorCode}'s name. The engine puts the
 * exception's type in front ({@code "type\nmessage\nCODE"}, docs/protocol.md section 3), so a client that knows
 * nothing of codes reads the code as the message's last line. Stateless.
 */
public final class XioErrorBody
{
    /** The most bytes of UTF-8 of a message sent, far below any header limit a peer sets. */
    public static final int MAX_MESSAGE_BYTES = 4096;

    /** The most bytes of UTF-8 of a type name sent: a class name no JVM would load is cut too. */
    public static final int MAX_TYPE_BYTES = 1024;

    private XioErrorBody()
    {
    }

    /** The message part for {@code error}: its message, bounded, and its code on a line of its own. */
    public static String encode(final XioError error)
    {
        return bounded(error.message(), MAX_MESSAGE_BYTES) + "\n" + error.code().name();
    }

    /** The code the message part of an answer ends with; UNKNOWN when it ends with none (another sender). */
    public static XioErrorCode code(final @Nullable String body)
    {
        final XioErrorCode code = trailingCode(body);
        return code == null ? XioErrorCode.UNKNOWN : code;
    }

    /** The message in the message part of an answer, without its code line. */
    public static String message(final @Nullable String body)
    {
        if (body == null)
        {
            return "";
        }
        return trailingCode(body) == null ? body : body.substring(0, body.lastIndexOf('\n'));
    }

    /** {@code text} cut to at most {@code maxBytes} bytes of UTF-8, never inside a character. */
    public static String bounded(final @Nullable String text, final int maxBytes)
    {
        if (text == null)
        {
            return "";
        }
        if (text.length() * 3L <= maxBytes)
        {
            return text; // short enough whatever its characters
        }
        int bytes = 0;
        for (int i = 0; i < text.length(); )
        {
            final int codePoint = text.codePointAt(i);
            final int width = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
            if (bytes + width > maxBytes)
            {
                return text.substring(0, i);
            }
            bytes += width;
            i += Character.charCount(codePoint);
        }
        return text;
    }

    private static @Nullable XioErrorCode trailingCode(final @Nullable String body)
    {
        final int newline = body == null ? -1 : body.lastIndexOf('\n');
        return newline < 0 ? null : XioErrorCode.named(body.substring(newline + 1));
    }
}
