package io.xio.engine.protocol;

import io.xio.engine.Credentials;
import io.xio.engine.ProtocolViolationException;
import org.agrona.DirectBuffer;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Encodes and decodes the bodies of control frames (set-up, redirect, reject, cancel, close): short strings
 * (u16 length + UTF-8), string maps (u16 count + pairs), little-endian integers. Control frames are rare, so
 * this favours clarity over avoiding allocation. Every read is bounds-checked; a short or malformed body is
 * a {@link ProtocolViolationException}. Instances are single-use and single-threaded.
 */
public final class SetupCodec
{
    private static final int MAX_STRING = 0xFFFF;
    /** The kinds of a SETUP's credentials field: {@code u8 kind}, then the kind's strings. */
    public static final int CREDENTIALS_NONE = 0;
    public static final int CREDENTIALS_BEARER = 1;
    public static final int CREDENTIALS_PASSWORD = 2;
    /** A SETUP_REJECT's code: why, in a form a client can act on (the reason is for people). */
    public static final int REJECT_REFUSED = 0;
    public static final int REJECT_AUTHENTICATION = 1;
    /** The server is draining: it takes no new sessions, another server of the service may. */
    public static final int REJECT_DRAINING = 2;
    /**
     * Bits of a SETUP's trailing {@code u8 features}, what the client understands beyond the first version (a SETUP
     * without the field understands none); unknown bits are ignored. {@code FEATURE_GOAWAY}: GOAWAY frames.
     */
    public static final int FEATURE_GOAWAY = 1;
    /**
     * Streams ({@link FrameType#STREAM_DATA}, {@link FrameType#CREDIT}, {@link FrameFlags#STREAM}): announced by a
     * client in its SETUP and by a server in its SETUP_ACCEPT; a session has streams only when both did.
     */
    public static final int FEATURE_STREAMS = 2;
    /** What this engine's clients announce. */
    public static final int FEATURES = FEATURE_GOAWAY | FEATURE_STREAMS;
    /** What this engine's servers announce in SETUP_ACCEPT. */
    public static final int SERVER_FEATURES = FEATURE_STREAMS;
    /** Most portals a GOAWAY may name, and most bytes of its reason: a client keeps them. */
    public static final int MAX_GOAWAY_PORTALS = 16;
    public static final int MAX_GOAWAY_REASON_BYTES = 512;

    /** Builds a body. */
    public static final class Writer
    {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream(64);

        public Writer u8(final int value)
        {
            out.write(value);
            return this;
        }

        public Writer i32(final int value)
        {
            for (int i = 0; i < 4; i++)
            {
                out.write(value >>> (8 * i));
            }
            return this;
        }

        public Writer i64(final long value)
        {
            for (int i = 0; i < 8; i++)
            {
                out.write((int)(value >>> (8 * i)));
            }
            return this;
        }

        public Writer string(final String value)
        {
            final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > MAX_STRING)
            {
                throw new IllegalArgumentException("string of " + bytes.length + " bytes is longer than " + MAX_STRING);
            }
            out.write(bytes.length & 0xFF);
            out.write(bytes.length >>> 8);
            out.write(bytes, 0, bytes.length);
            return this;
        }

        public Writer map(final Map<String, String> map)
        {
            if (map.size() > MAX_STRING)
            {
                throw new IllegalArgumentException("too many attributes: " + map.size());
            }
            out.write(map.size() & 0xFF);
            out.write(map.size() >>> 8);
            map.forEach((k, v) -> string(k).string(v));
            return this;
        }

        public Writer strings(final List<String> values)
        {
            if (values.size() > MAX_STRING)
            {
                throw new IllegalArgumentException("too many strings: " + values.size());
            }
            out.write(values.size() & 0xFF);
            out.write(values.size() >>> 8);
            values.forEach(this::string);
            return this;
        }

        /** Raw bytes, length first as for a string. */
        public Writer bytes(final byte[] value)
        {
            if (value.length > MAX_STRING)
            {
                throw new IllegalArgumentException(value.length + " bytes are more than " + MAX_STRING);
            }
            out.write(value.length & 0xFF);
            out.write(value.length >>> 8);
            out.write(value, 0, value.length);
            return this;
        }

        /** {@code u8 kind}, then a bearer's {@code string token}, a password's {@code string user, string password}. */
        public Writer credentials(final Credentials credentials)
        {
            if (credentials instanceof Credentials.Bearer bearer)
            {
                return u8(CREDENTIALS_BEARER).string(bearer.token());
            }
            if (credentials instanceof Credentials.Password password)
            {
                return u8(CREDENTIALS_PASSWORD).string(password.username()).string(password.password());
            }
            return u8(CREDENTIALS_NONE);
        }

        /** A GOAWAY's body: {@code list portals} (their endpoints), then {@code string reason}. */
        public Writer goAway(final io.xio.engine.GoAway goAway)
        {
            if (goAway.portals().size() > MAX_GOAWAY_PORTALS)
            {
                throw new IllegalArgumentException("a GOAWAY names at most " + MAX_GOAWAY_PORTALS + " portals, not " +
                    goAway.portals().size());
            }
            final List<String> portals = new ArrayList<>(goAway.portals().size());
            goAway.portals().forEach(portal -> portals.add(portal.endpoint().toString()));
            return strings(portals).string(goAway.reason());
        }

        public byte[] toBytes()
        {
            return out.toByteArray();
        }
    }

    /** Reads a body in place. */
    public static final class Reader
    {
        private final DirectBuffer buffer;
        private final int end;
        private int at;

        public Reader(final DirectBuffer buffer, final int offset, final int length)
        {
            this.buffer = buffer;
            this.at = offset;
            this.end = offset + length;
        }

        private void need(final int bytes, final String what)
        {
            if (end - at < bytes)
            {
                throw new ProtocolViolationException("control frame body too short reading " + what);
            }
        }

        public int u8()
        {
            need(1, "u8");
            return buffer.getByte(at++) & 0xFF;
        }

        public int i32()
        {
            need(4, "i32");
            final int value = buffer.getInt(at, Frame.ORDER);
            at += 4;
            return value;
        }

        public long i64()
        {
            need(8, "i64");
            final long value = buffer.getLong(at, Frame.ORDER);
            at += 8;
            return value;
        }

        private int u16()
        {
            need(2, "u16");
            final int value = buffer.getShort(at, Frame.ORDER) & 0xFFFF;
            at += 2;
            return value;
        }

        public String string()
        {
            final int length = u16();
            need(length, "a string of " + length + " bytes");
            final byte[] bytes = new byte[length];
            buffer.getBytes(at, bytes);
            at += length;
            return new String(bytes, StandardCharsets.UTF_8);
        }

        /** Raw bytes written by {@link Writer#bytes}. */
        public byte[] bytes()
        {
            final int length = u16();
            need(length, length + " bytes");
            final byte[] bytes = new byte[length];
            buffer.getBytes(at, bytes);
            at += length;
            return bytes;
        }

        /**
         * Credentials written by {@link Writer#credentials}; an unknown kind is a violation. Their size is bounded by
         * the frame's (a SETUP is a control frame, at most {@code maxHeaderBytes}) and by each string's u16 length.
         */
        public Credentials credentials()
        {
            final int kind = u8();
            return switch (kind)
            {
                case CREDENTIALS_NONE -> Credentials.NONE;
                case CREDENTIALS_BEARER -> Credentials.bearer(string());
                case CREDENTIALS_PASSWORD -> Credentials.password(string(), string());
                default -> throw new ProtocolViolationException("unknown credentials kind " + kind + " in a set-up");
            };
        }

        /**
         * A GOAWAY's body ({@link Writer#goAway}): more than {@link #MAX_GOAWAY_PORTALS} portals, a portal that is not
         * a URI, or a reason over {@link #MAX_GOAWAY_REASON_BYTES} is a violation. Fields after those are a later
         * version's and ignored.
         */
        public io.xio.engine.GoAway goAway()
        {
            final int count = u16();
            if (count > MAX_GOAWAY_PORTALS)
            {
                throw new ProtocolViolationException("GOAWAY names " + count + " portals, more than " +
                    MAX_GOAWAY_PORTALS);
            }
            final List<io.xio.engine.XioUri> portals = new ArrayList<>(count);
            for (int i = 0; i < count; i++)
            {
                final String uri = string();
                try
                {
                    portals.add(io.xio.engine.XioUri.parse(uri));
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new ProtocolViolationException("GOAWAY to an unusable portal: " + ex.getMessage());
                }
            }
            final int reasonAt = at;
            final String reason = string();
            if (at - reasonAt - 2 > MAX_GOAWAY_REASON_BYTES)
            {
                throw new ProtocolViolationException("GOAWAY reason of " + (at - reasonAt - 2) + " bytes, more than " +
                    MAX_GOAWAY_REASON_BYTES);
            }
            return new io.xio.engine.GoAway(portals, reason);
        }

        /** Bytes left after the fields read so far: a later version's fields, or none. */
        public int remaining()
        {
            return end - at;
        }

        public Map<String, String> map()
        {
            final int count = u16();
            final Map<String, String> map = new LinkedHashMap<>();
            for (int i = 0; i < count; i++)
            {
                map.put(string(), string());
            }
            return map;
        }

        public List<String> strings()
        {
            final int count = u16();
            final List<String> values = new ArrayList<>(Math.min(count, 64));
            for (int i = 0; i < count; i++)
            {
                values.add(string());
            }
            return values;
        }
    }

    private SetupCodec()
    {
    }
}
