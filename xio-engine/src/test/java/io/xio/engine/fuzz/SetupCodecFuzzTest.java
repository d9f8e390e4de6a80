package io.xio.engine.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.xio.engine.ProtocolViolationException;
import io.xio.engine.protocol.SetupCodec;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * Fuzz targets for the control-body codec ({@link SetupCodec}). {@link #reader} reads arbitrary bytes as
 * every control body of docs/protocol.md §3 and as a sequence of fields the input picks: the only failure
 * allowed is the documented {@link ProtocolViolationException} ("control frame body too short reading ..."),
 * and what is read must match a decoder written here from §2.3, wherever the body sits in its buffer.
 * {@link #roundTrip} writes generated fields with the {@link SetupCodec.Writer} and reads them back.
 * Inputs: {@code SetupCodecFuzzTestInputs/reader} and {@code .../roundTrip}; docs/fuzzing.md.
 */
class SetupCodecFuzzTest
{
    private static final int U8 = 0;
    private static final int I32 = 1;
    private static final int I64 = 2;
    private static final int STRING = 3;
    private static final int MAP = 4;
    private static final int STRINGS = 5;
    private static final int KINDS = 6;
    /**
     * The bodies of §3: SETUP, SETUP_ACCEPT, the reasons, SETUP_REDIRECT, CANCEL, CANCEL_RESULT, DATA_DESCRIPTOR,
     * GOAWAY.
     */
    private static final int[][] BODIES = {
        {U8, STRING, MAP, I32, I32}, {MAP, I32, I32}, {STRING}, {STRINGS}, {I64}, {I64, I32}, {I64, I32, I32},
        {STRINGS, STRING},
    };

    @FuzzTest
    void reader(final byte[] input)
    {
        for (final int[] body : BODIES)
        {
            readBothWays(input, 0, input.length, body);
        }
        goAway(input);
        if (input.length > 0)
        {
            // Any one or two fields: the first byte picks them (bit 0 how many, bits 1-3 and 4-6 which).
            final int pick = input[0] & 0xFF;
            final int[] fields = {((pick >>> 1) & 7) % KINDS, ((pick >>> 4) & 7) % KINDS};
            readBothWays(input, 1, input.length - 1, java.util.Arrays.copyOf(fields, 1 + (pick & 1)));
        }
    }

    private static void readBothWays(final byte[] input, final int from, final int length, final int[] fields)
    {
        final byte[] exact = new byte[length];
        System.arraycopy(input, from, exact, 0, length);
        final List<Object> read = read(new UnsafeBuffer(exact), 0, length, fields);
        final byte[] padded = new byte[length + 40];
        java.util.Arrays.fill(padded, (byte)0x7F); // what lies around a body must never be read
        System.arraycopy(exact, 0, padded, 17, length);
        assertThat(read(new UnsafeBuffer(padded), 17, length, fields)).as("the same body elsewhere").isEqualTo(read);
        assertThat(read).as("what docs/protocol.md 2.3 reads").isEqualTo(specRead(exact, fields));
    }

    /**
     * A GOAWAY body as the client reads it: its portals and reason as {@code list, string} read them, or a
     * violation for a short body, too many portals, one that is no URI or too long a reason; nothing else.
     */
    private static void goAway(final byte[] input)
    {
        final List<Object> fields = read(new UnsafeBuffer(input), 0, input.length, new int[] {STRINGS, STRING});
        try
        {
            final io.xio.engine.GoAway goAway = new SetupCodec.Reader(new UnsafeBuffer(input), 0, input.length)
                .goAway();
            assertThat(fields).hasSize(2);
            assertThat(goAway.portals()).hasSize(((List<?>)fields.get(0)).size())
                .hasSizeLessThanOrEqualTo(SetupCodec.MAX_GOAWAY_PORTALS);
            assertThat(goAway.reason()).isEqualTo(fields.get(1));
        }
        catch (final ProtocolViolationException ex)
        {
            // the message is logged: a peer's bytes in it must not start a line of their own
            assertThat(ex.getMessage()).matches("(control frame body too short reading |GOAWAY )\\P{Cntrl}*");
        }
    }

    /** The fields read, then (if the body was too short) the violation's message. */
    private static List<Object> read(final UnsafeBuffer buffer, final int offset, final int length, final int[] fields)
    {
        final SetupCodec.Reader reader = new SetupCodec.Reader(buffer, offset, length);
        final List<Object> out = new ArrayList<>();
        try
        {
            for (final int field : fields)
            {
                out.add(switch (field)
                {
                    case U8 -> reader.u8();
                    case I32 -> reader.i32();
                    case I64 -> reader.i64();
                    case STRING -> reader.string();
                    case MAP -> reader.map();
                    default -> reader.strings();
                });
            }
        }
        catch (final ProtocolViolationException ex)
        {
            assertThat(ex.getMessage()).startsWith("control frame body too short reading ");
            out.add(ShortBody.INSTANCE);
        }
        return out;
    }

    /** Marks where a read ran out of body (the message's detail is the implementation's). */
    private enum ShortBody
    {
        INSTANCE
    }

    /** §2.3 from the document, decoded here with a plain little-endian ByteBuffer. */
    private static List<Object> specRead(final byte[] body, final int[] fields)
    {
        final ByteBuffer in = ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN);
        final List<Object> out = new ArrayList<>();
        try
        {
            for (final int field : fields)
            {
                out.add(switch (field)
                {
                    case U8 -> in.get() & 0xFF;
                    case I32 -> in.getInt();
                    case I64 -> in.getLong();
                    case STRING -> specString(in);
                    case MAP ->
                    {
                        final int count = in.getShort() & 0xFFFF;
                        final Map<String, String> map = new LinkedHashMap<>();
                        for (int i = 0; i < count; i++)
                        {
                            final String key = specString(in);
                            map.put(key, specString(in));
                        }
                        yield map;
                    }
                    default ->
                    {
                        final int count = in.getShort() & 0xFFFF;
                        final List<String> list = new ArrayList<>();
                        for (int i = 0; i < count; i++)
                        {
                            list.add(specString(in));
                        }
                        yield list;
                    }
                });
            }
        }
        catch (final java.nio.BufferUnderflowException ex)
        {
            out.add(ShortBody.INSTANCE);
        }
        return out;
    }

    private static String specString(final ByteBuffer in)
    {
        final byte[] bytes = new byte[in.getShort() & 0xFFFF];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @FuzzTest
    void roundTrip(final FuzzedDataProvider data)
    {
        final SetupCodec.Writer writer = new SetupCodec.Writer();
        final List<Integer> kinds = new ArrayList<>();
        final List<Object> expected = new ArrayList<>();
        long size = 0;
        while (data.remainingBytes() > 0 && kinds.size() < 32)
        {
            final int kind = data.consumeInt(0, KINDS);
            switch (kind)
            {
                case U8 ->
                {
                    final int value = data.consumeInt();
                    writer.u8(value);
                    expected.add(value & 0xFF); // u8 keeps the low byte, as ByteArrayOutputStream.write does
                    size += 1;
                }
                case I32 ->
                {
                    final int value = data.consumeInt();
                    writer.i32(value);
                    expected.add(value);
                    size += 4;
                }
                case I64 ->
                {
                    final long value = data.consumeLong();
                    writer.i64(value);
                    expected.add(value);
                    size += 8;
                }
                case STRING ->
                {
                    final String value = data.consumeString(300);
                    writer.string(value);
                    expected.add(asSent(value));
                    size += 2 + utf8Length(value);
                }
                case MAP ->
                {
                    final Map<String, String> map = new LinkedHashMap<>();
                    final int count = data.consumeInt(0, 6);
                    for (int i = 0; i < count; i++)
                    {
                        map.put(data.consumeString(40), data.consumeString(40));
                    }
                    writer.map(map);
                    final Map<String, String> sent = new LinkedHashMap<>();
                    map.forEach((k, v) -> sent.put(asSent(k), asSent(v)));
                    expected.add(sent);
                    size += 2;
                    for (final Map.Entry<String, String> entry : map.entrySet())
                    {
                        size += 4 + utf8Length(entry.getKey()) + utf8Length(entry.getValue());
                    }
                }
                case STRINGS ->
                {
                    final List<String> list = new ArrayList<>();
                    final int count = data.consumeInt(0, 6);
                    for (int i = 0; i < count; i++)
                    {
                        list.add(data.consumeString(40));
                    }
                    writer.strings(list);
                    expected.add(list.stream().map(SetupCodecFuzzTest::asSent).toList());
                    size += 2 + list.stream().mapToLong(s -> 2 + utf8Length(s)).sum();
                }
                default ->
                {
                    // A long string of one character: the writer takes up to 65535 bytes and refuses more.
                    final String value = String.valueOf(data.consumeChar()).repeat(data.consumeInt(21_000, 66_000));
                    final int bytes = utf8Length(value);
                    if (bytes > 0xFFFF)
                    {
                        assertThatThrownBy(() -> writer.string(value)).isInstanceOf(IllegalArgumentException.class);
                        continue;
                    }
                    writer.string(value);
                    expected.add(asSent(value));
                    size += 2 + bytes;
                }
            }
            kinds.add(kind == KINDS ? STRING : kind);
        }
        final byte[] body = writer.toBytes();
        assertThat((long)body.length).as("encoded size").isEqualTo(size);
        final int[] fields = kinds.stream().mapToInt(Integer::intValue).toArray();
        final List<Object> read = read(new UnsafeBuffer(body), 0, body.length, fields);
        if (!read.equals(expected))
        {
            fail("read back " + read + " but wrote " + expected);
        }
        final SetupCodec.Reader exhausted = new SetupCodec.Reader(new UnsafeBuffer(body), body.length, 0);
        assertThatThrownBy(exhausted::u8).isInstanceOf(ProtocolViolationException.class);
    }

    /** What a string becomes on the wire and back: lone surrogates have no UTF-8 and go as '?'. */
    private static String asSent(final String value)
    {
        return new String(value.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    }

    private static int utf8Length(final String value)
    {
        return value.getBytes(StandardCharsets.UTF_8).length;
    }
}
