package io.xio.zookeeper;

import io.xio.cluster.Endpoint;
import io.xio.engine.XioUri;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The data of one endpoint's znode: UTF-8 text, one {@code key=value} per line after a version line.
 * <pre>
 * v1
 * host=node-a/3f2c...
 * portal=tcp://10.0.0.5:7000
 * portal=shm://orders
 * meta.zone=a
 * </pre>
 * A reader skips nodes of a version it does not know, and ignores keys of its own version it does not know, so
 * fields can be added without a new version. ZooKeeper's data is input like any other: anything over
 * {@link #MAX_BYTES}, not UTF-8, or not of this form is refused, never half read. Stateless; any thread.
 */
final class EndpointCodec
{
    /** The largest node data read or written: a few portals and some metadata need a fraction of it. */
    static final int MAX_BYTES = 64 * 1024;

    static final String VERSION = "v1";

    private static final String HOST = "host";
    private static final String PORTAL = "portal";
    private static final String META = "meta.";

    private EndpointCodec()
    {
    }

    /** {@code endpoint} as node data; refuses what a reader could not read back the same. */
    static byte[] encode(final Endpoint endpoint)
    {
        final StringBuilder text = new StringBuilder(128).append(VERSION).append('\n');
        line(text, HOST, endpoint.host());
        for (final XioUri portal : endpoint.portals())
        {
            line(text, PORTAL, portal.toString());
        }
        for (final Map.Entry<String, String> entry : endpoint.metadata().entrySet())
        {
            final String key = entry.getKey();
            if (key.isEmpty() || key.indexOf('=') >= 0)
            {
                throw new IllegalArgumentException("endpoint " + endpoint.id() + ": metadata key '" + key +
                    "' must be non-empty and without '='");
            }
            line(text, META + key, entry.getValue());
        }
        final byte[] data = text.toString().getBytes(StandardCharsets.UTF_8);
        if (data.length > MAX_BYTES)
        {
            throw new IllegalArgumentException("endpoint " + endpoint.id() + " needs " + data.length +
                " bytes in ZooKeeper, over the limit of " + MAX_BYTES);
        }
        return data;
    }

    /**
     * The endpoint {@code id}'s node data describes.
     *
     * @throws IllegalArgumentException saying what is wrong, without quoting the data
     */
    static Endpoint decode(final String id, final byte[] data)
    {
        if (data == null || data.length == 0)
        {
            throw new IllegalArgumentException("no data");
        }
        if (data.length > MAX_BYTES)
        {
            throw new IllegalArgumentException(data.length + " bytes, over the limit of " + MAX_BYTES);
        }
        final String text;
        try
        {
            text = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(data))
                .toString();
        }
        catch (final CharacterCodingException ex)
        {
            throw new IllegalArgumentException("not UTF-8", ex);
        }
        final String[] lines = text.split("\n", -1);
        if (!VERSION.equals(lines[0]))
        {
            throw new IllegalArgumentException("not of format " + VERSION);
        }
        String host = null;
        final List<XioUri> portals = new ArrayList<>();
        final Map<String, String> metadata = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++)
        {
            final String line = lines[i];
            if (line.isEmpty())
            {
                continue;
            }
            final int eq = line.indexOf('=');
            if (eq <= 0)
            {
                throw new IllegalArgumentException("line " + (i + 1) + " is not key=value");
            }
            final String key = line.substring(0, eq);
            final String value = line.substring(eq + 1);
            if (HOST.equals(key))
            {
                if (host != null)
                {
                    throw new IllegalArgumentException("line " + (i + 1) + ": a second host");
                }
                host = value;
            }
            else if (PORTAL.equals(key))
            {
                try
                {
                    portals.add(XioUri.parse(value));
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new IllegalArgumentException("line " + (i + 1) + " is no portal address", ex);
                }
            }
            else if (key.startsWith(META) && key.length() > META.length())
            {
                if (metadata.put(key.substring(META.length()), value) != null)
                {
                    throw new IllegalArgumentException("line " + (i + 1) + ": a second " + key);
                }
            }
        }
        if (portals.isEmpty())
        {
            throw new IllegalArgumentException("no portal");
        }
        return new Endpoint(id, host, portals, metadata);
    }

    private static void line(final StringBuilder text, final String key, final String value)
    {
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            if (c == '\n' || c == '\r')
            {
                throw new IllegalArgumentException(key + " '" + value.replace("\n", "\\n").replace("\r", "\\r") +
                    "' has a line break, which ZooKeeper node data of format " + VERSION + " cannot carry");
            }
        }
        text.append(key).append('=').append(value).append('\n');
    }
}
