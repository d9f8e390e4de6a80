package io.xio.actuate.observation;

import io.xio.engine.Metadata;
import org.jspecify.annotations.Nullable;

import java.util.Locale;

/**
 * How a propagator's headers map to xio metadata: keys lower-cased (B3 writes {@code X-B3-TraceId}, metadata keys
 * are lower case, as HTTP/2 headers are), and an entry whose key metadata cannot hold is left out rather than
 * failing the call it would trace.
 */
final class MetadataCarrier
{
    private MetadataCarrier()
    {
    }

    /** The setter of {@link XioClientObservationContext}: on the thread that makes the call. */
    static void set(final @Nullable Metadata carrier, final String key, final String value)
    {
        final String name = key.toLowerCase(Locale.ROOT);
        if (carrier != null && !carrier.isReadOnly() && Metadata.problemWithKey(name) == null &&
            !Metadata.isBinaryKey(name))
        {
            carrier.put(name, value);
        }
    }

    /** The getter of {@link XioServerObservationContext}. */
    static @Nullable String get(final @Nullable Metadata carrier, final String key)
    {
        final String name = key.toLowerCase(Locale.ROOT);
        return carrier == null || Metadata.isBinaryKey(name) ? null : carrier.get(name);
    }
}
