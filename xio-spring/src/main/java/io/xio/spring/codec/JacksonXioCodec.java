package io.xio.spring.codec;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.ObjectMapper;

import java.lang.reflect.Type;
import java.nio.ByteBuffer;

/**
 * A {@link XioCodec} on a Jackson 3 mapper (JSON, Smile or CBOR): arguments travel as one array, each
 * decoded to its parameter's generic type, so {@code List<Order>}, records and {@code Optional} round-trip.
 * Thread-safe.
 */
public final class JacksonXioCodec implements XioCodec
{
    private final ObjectMapper mapper;
    private final java.util.Map<Type, JavaType> types = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Map<Type, ObjectReader> readers = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Map<Type, ObjectWriter> writers = new java.util.concurrent.ConcurrentHashMap<>();

    public JacksonXioCodec(final ObjectMapper mapper)
    {
        this.mapper = mapper;
    }

    public ObjectMapper mapper()
    {
        return mapper;
    }

    @Override
    public byte[] encodeArguments(final @Nullable Object[] arguments, final Type[] types)
    {
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(64);
        encodeArguments(arguments, types, out);
        return out.toByteArray();
    }

    @Override
    public void encodeArguments(final @Nullable Object[] arguments, final Type[] types,
        final java.io.ByteArrayOutputStream out)
    {
        try (JsonGenerator generator = mapper.createGenerator(out))
        {
            generator.writeStartArray();
            for (int i = 0; i < types.length; i++)
            {
                if (arguments[i] == null)
                {
                    generator.writeNull();
                }
                else
                {
                    writer(types[i]).writeValue(generator, arguments[i]);
                }
            }
            generator.writeEndArray();
        }
    }

    @Override
    public @Nullable Object[] decodeArguments(final ByteBuffer bytes, final Type[] types)
    {
        // Streamed, one value per parameter type: no tree and no token buffer in between.
        final JsonParser opened = bytes.hasArray()
            ? mapper.createParser(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining())
            : mapper.createParser(array(bytes));
        try (JsonParser parser = opened)
        {
            if (parser.nextToken() != JsonToken.START_ARRAY)
            {
                throw new IllegalArgumentException("call arguments are not an array");
            }
            final @Nullable Object[] values = new Object[types.length];
            for (int i = 0; i < types.length; i++)
            {
                final JsonToken token = parser.nextToken();
                if (token == null || token == JsonToken.END_ARRAY)
                {
                    throw new IllegalArgumentException("expected " + types.length + " arguments, got " + i);
                }
                values[i] = token == JsonToken.VALUE_NULL ? null : reader(types[i]).readValue(parser);
            }
            if (parser.nextToken() != JsonToken.END_ARRAY)
            {
                throw new IllegalArgumentException("more than the expected " + types.length + " arguments");
            }
            return values;
        }
    }

    @Override
    public byte[] encode(final @Nullable Object value, final Type type)
    {
        return writer(type).writeValueAsBytes(value);
    }

    private ObjectWriter writer(final Type type)
    {
        final ObjectWriter known = writers.get(type); // computeIfAbsent's lambda would be made per call
        return known != null ? known : writers.computeIfAbsent(type, t -> mapper.writerFor(javaType(t)));
    }

    @Override
    public @Nullable Object decode(final ByteBuffer bytes, final Type type)
    {
        if (bytes.hasArray())
        {
            return mapper.readValue(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining(),
                javaType(type));
        }
        final byte[] array = array(bytes);
        return mapper.readValue(array, 0, array.length, javaType(type));
    }

    /** A reader for one value inside the arguments array: the array's next values are not trailing garbage. */
    private ObjectReader reader(final Type type)
    {
        final ObjectReader known = readers.get(type);
        return known != null ? known : readers.computeIfAbsent(type, t ->
            mapper.readerFor(javaType(t)).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS));
    }

    private JavaType javaType(final Type type)
    {
        final JavaType known = types.get(type);
        return known != null ? known : types.computeIfAbsent(type, t -> mapper.getTypeFactory().constructType(t));
    }

    private static byte[] array(final ByteBuffer bytes)
    {
        final byte[] array = new byte[bytes.remaining()];
        bytes.duplicate().get(array);
        return array;
    }
}
