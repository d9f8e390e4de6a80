package io.xio.spring.autoconfigure.codec;

import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
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

    public JacksonXioCodec(final ObjectMapper mapper)
    {
        this.mapper = mapper;
    }

    public ObjectMapper mapper()
    {
        return mapper;
    }

    @Override
    public byte[] encodeArguments(final Object[] arguments)
    {
        return mapper.writeValueAsBytes(arguments == null ? new Object[0] : arguments);
    }

    @Override
    public Object[] decodeArguments(final ByteBuffer bytes, final Type[] types)
    {
        final JsonNode array = mapper.readTree(array(bytes));
        if (!array.isArray() || array.size() != types.length)
        {
            throw new IllegalArgumentException("expected " + types.length + " arguments, got " + array);
        }
        final Object[] values = new Object[types.length];
        for (int i = 0; i < types.length; i++)
        {
            final JsonNode node = array.get(i);
            values[i] = node.isNull() ? null : mapper.treeToValue(node, javaType(types[i]));
        }
        return values;
    }

    @Override
    public byte[] encode(final Object value)
    {
        return mapper.writeValueAsBytes(value);
    }

    @Override
    public Object decode(final ByteBuffer bytes, final Type type)
    {
        final byte[] array = array(bytes);
        return mapper.readValue(array, 0, array.length, javaType(type));
    }

    private JavaType javaType(final Type type)
    {
        return mapper.getTypeFactory().constructType(type);
    }

    private static byte[] array(final ByteBuffer bytes)
    {
        final byte[] array = new byte[bytes.remaining()];
        bytes.duplicate().get(array);
        return array;
    }
}
