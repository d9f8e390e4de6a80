package io.xio.benchmarks.compare;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A peer's settings as one command-line word: comma-separated {@code key=value} pairs, a bare word meaning
 * {@code word=true} (e.g. {@code tcp,ctx=2,poll=spin}). Immutable.
 */
public final class Variant
{
    private final Map<String, String> values = new LinkedHashMap<>();

    private Variant(final String text)
    {
        for (final String part : text.split(","))
        {
            if (part.isBlank())
            {
                continue;
            }
            final int eq = part.indexOf('=');
            values.put(eq < 0 ? part : part.substring(0, eq), eq < 0 ? "true" : part.substring(eq + 1));
        }
    }

    public static Variant parse(final String text)
    {
        return new Variant(text);
    }

    public boolean has(final String key)
    {
        return values.containsKey(key);
    }

    public String get(final String key, final String fallback)
    {
        return values.getOrDefault(key, fallback);
    }

    /** One of {@code allowed}; anything else is an error naming the key. */
    public String oneOf(final String key, final String fallback, final String... allowed)
    {
        final String value = get(key, fallback);
        for (final String candidate : allowed)
        {
            if (candidate.equals(value))
            {
                return value;
            }
        }
        throw new IllegalArgumentException(key + " must be one of " + String.join("|", allowed) + ", was " + value);
    }

    public int integer(final String key, final int fallback)
    {
        return Integer.parseInt(get(key, String.valueOf(fallback)));
    }
}
