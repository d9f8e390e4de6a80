package io.xio.spring.service;

import io.xio.engine.Message;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.method.Invocation;
import io.xio.spring.method.ServiceMethod;
import org.agrona.DirectBuffer;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The methods of an exported interface by wire name, and how a call's header names one: found by comparing bytes
 * in the receive buffer, so that no name is decoded and no view made; and whether a call's arguments are that
 * method's constant ones (every argument a data segment), which then need no decoding. Immutable once made;
 * any thread.
 */
final class ServiceMethods
{
    /** Not found in the header: the caller names a method of no known wire name, or its header is malformed. */
    static final int NOT_FOUND = -1;

    private final Map<String, ServiceMethod> byName = new HashMap<>();
    private final ServiceMethod[] methods;
    /** The methods' wire names in UTF-8, as {@link #methods}. */
    private final byte[][] wireNames;
    /**
     * Per method, the codec's arguments of a method whose every argument is a data segment (they never change),
     * else null.
     */
    private final byte[] @Nullable [] constantArguments;

    /**
     * @throws IllegalStateException when two methods share a wire name
     */
    ServiceMethods(final Class<?> api, final XioCodec codec)
    {
        for (final Method method : api.getMethods())
        {
            if (!method.isDefault() && !Modifier.isStatic(method.getModifiers()))
            {
                final ServiceMethod described = ServiceMethod.of(method, api);
                if (byName.put(described.wireName(), described) != null)
                {
                    throw new IllegalStateException("two methods of " + api.getName() + " share the wire name " +
                        described.wireName() + "; set @XioMethod(name) on one of them");
                }
            }
        }
        this.methods = byName.values().toArray(new ServiceMethod[0]);
        this.wireNames = new byte[methods.length][];
        this.constantArguments = new byte[methods.length][];
        for (int i = 0; i < methods.length; i++)
        {
            final ServiceMethod method = methods[i];
            wireNames[i] = method.wireName().getBytes(StandardCharsets.UTF_8);
            boolean allSegments = true;
            for (final boolean segment : method.segments())
            {
                allSegments &= segment;
            }
            constantArguments[i] = allSegments
                ? codec.encodeArguments(new Object[method.segments().length], method.parameterTypes()) : null;
        }
    }

    /** The method of wire name {@code name}, or null. */
    @Nullable ServiceMethod named(final String name)
    {
        return byName.get(name);
    }

    /** The method {@link #find} found. */
    ServiceMethod at(final int found)
    {
        return methods[found];
    }

    /** The methods by wire name, sorted. */
    SortedMap<String, ServiceMethod> sorted()
    {
        return new TreeMap<>(byName);
    }

    /** The index of the method {@code message}'s header names, or {@link #NOT_FOUND}. */
    int find(final Message message)
    {
        final DirectBuffer buffer = message.buffer();
        final int at = message.headerOffset();
        final int headerLength = message.headerLength();
        if (headerLength < 2)
        {
            return NOT_FOUND;
        }
        final int length = ((buffer.getByte(at) & 0xFF) << 8) | (buffer.getByte(at + 1) & 0xFF);
        if (length > headerLength - 2)
        {
            return NOT_FOUND;
        }
        for (int m = 0; m < wireNames.length; m++)
        {
            final byte[] name = wireNames[m];
            if (name.length == length && sameBytes(buffer, at + 2, name))
            {
                return m;
            }
        }
        return NOT_FOUND;
    }

    /** Whether the arguments in the header of a call of method {@code found} are that method's constant ones. */
    boolean hasConstantArguments(final Message message, final int found)
    {
        if (found < 0 || constantArguments[found] == null)
        {
            return false;
        }
        final byte[] bytes = constantArguments[found];
        final int skip = 2 + wireNames[found].length;
        return message.headerLength() - skip == bytes.length &&
            sameBytes(message.buffer(), message.headerOffset() + skip, bytes);
    }

    /** A view of the arguments in the header of a call of method {@code found} (or of a name not found). */
    ByteBuffer argumentsOf(final Message message, final int found)
    {
        final ByteBuffer header = message.header();
        if (found >= 0)
        {
            header.position(2 + wireNames[found].length);
        }
        else
        {
            Invocation.readName(header);
        }
        return header;
    }

    private static boolean sameBytes(final DirectBuffer buffer, final int at, final byte[] bytes)
    {
        for (int i = 0; i < bytes.length; i++)
        {
            if (buffer.getByte(at + i) != bytes[i])
            {
                return false;
            }
        }
        return true;
    }
}
