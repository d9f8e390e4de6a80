package io.xio.spring.autoconfigure.reflection;

import org.springframework.beans.BeanUtils;
import org.springframework.core.ResolvableType;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Writes JSON Schemas (2020-12) of Java types as Jackson reads and writes them by default: records and beans as
 * objects of their properties, enums as their names, collections and arrays as arrays, maps as objects, {@code
 * byte[]} as base64, {@code java.time} types as ISO-8601 strings. Every record, bean and enum becomes a definition
 * that schemas refer to with {@code $ref}, so types that contain themselves end; at most
 * {@value #MAX_DEFINITIONS} definitions are written, further types are described as any value. Naming strategies
 * and Jackson annotations are not read: the schema shows the Java names. One instance per description; not
 * thread-safe.
 */
final class JsonSchemas
{
    /** The most definitions one description holds: a service's types are described, not a whole object graph. */
    static final int MAX_DEFINITIONS = 256;

    /** The JSON Schema formats of the types Jackson writes as formatted strings. */
    private static final Map<Class<?>, String> FORMATS = Map.ofEntries(Map.entry(java.util.UUID.class, "uuid"),
        Map.entry(java.net.URI.class, "uri"), Map.entry(java.net.URL.class, "uri"),
        Map.entry(java.time.Instant.class, "date-time"), Map.entry(java.time.OffsetDateTime.class, "date-time"),
        Map.entry(java.time.ZonedDateTime.class, "date-time"), Map.entry(java.time.LocalDate.class, "date"),
        Map.entry(java.time.LocalTime.class, "time"), Map.entry(java.time.Duration.class, "duration"));

    private final Map<String, Object> definitions = new TreeMap<>();
    /** Definition names by the type's full name with its generics (ResolvableTypes of one type need not be equal). */
    private final Map<String, String> named = new HashMap<>();

    /** The definitions the schemas written so far refer to, by name. */
    Map<String, Object> definitions()
    {
        return definitions;
    }

    /** The schema of {@code type} (a {@link Type} as reflection gives it, type variables resolved). */
    Map<String, Object> schema(final Type type)
    {
        return schema(ResolvableType.forType(type));
    }

    private Map<String, Object> schema(final ResolvableType type)
    {
        final Class<?> raw = type.resolve(Object.class);
        final Map<String, Object> simple = simple(raw);
        if (simple != null)
        {
            return simple;
        }
        if (raw.isArray())
        {
            return array(schema(type.getComponentType()));
        }
        if (Optional.class == raw)
        {
            return schema(type.getGeneric(0));
        }
        if (Collection.class.isAssignableFrom(raw) || Iterable.class.isAssignableFrom(raw))
        {
            return array(schema(type.as(Iterable.class).getGeneric(0)));
        }
        if (Map.class.isAssignableFrom(raw))
        {
            final Map<String, Object> map = object();
            map.put("additionalProperties", schema(type.asMap().getGeneric(1)));
            return map;
        }
        if (raw == Object.class || raw.isInterface() || Modifier.isAbstract(raw.getModifiers()))
        {
            return new LinkedHashMap<>(); // any value: the type does not say which
        }
        return reference(type, raw);
    }

    /** A {@code $ref} to the definition of a record, bean or enum, written the first time it is met. */
    private Map<String, Object> reference(final ResolvableType type, final Class<?> raw)
    {
        String name = named.get(type.toString());
        if (name == null)
        {
            if (definitions.size() >= MAX_DEFINITIONS)
            {
                final Map<String, Object> any = new LinkedHashMap<>();
                any.put("description", raw.getName() + " (not described: more than " + MAX_DEFINITIONS + " types)");
                return any;
            }
            name = uniqueName(type, raw);
            named.put(type.toString(), name);
            definitions.put(name, Map.of()); // taken before its properties are described: they may refer to it
            definitions.put(name, raw.isEnum() ? enumeration(raw) : properties(type, raw));
        }
        return new LinkedHashMap<>(Map.of("$ref", "#/$defs/" + name));
    }

    private String uniqueName(final ResolvableType type, final Class<?> raw)
    {
        final StringBuilder name = new StringBuilder(raw.getSimpleName());
        for (final ResolvableType generic : type.getGenerics())
        {
            name.append("Of").append(generic.resolve(Object.class).getSimpleName());
        }
        String unique = name.toString();
        for (int i = 2; definitions.containsKey(unique); i++)
        {
            unique = name + "_" + i; // another type of the same simple name
        }
        return unique;
    }

    private Map<String, Object> properties(final ResolvableType type, final Class<?> raw)
    {
        final Map<String, Object> properties = new LinkedHashMap<>();
        if (raw.isRecord())
        {
            for (final RecordComponent component : raw.getRecordComponents())
            {
                properties.put(component.getName(),
                    schema(ResolvableType.forType(component.getGenericType(), type)));
            }
        }
        else
        {
            for (final PropertyDescriptor property : BeanUtils.getPropertyDescriptors(raw))
            {
                if (property.getReadMethod() != null && property.getReadMethod().getDeclaringClass() != Object.class)
                {
                    properties.put(property.getName(),
                        schema(ResolvableType.forType(property.getReadMethod().getGenericReturnType(), type)));
                }
            }
            for (final java.lang.reflect.Field field : raw.getFields())
            {
                if (!Modifier.isStatic(field.getModifiers()))
                {
                    properties.putIfAbsent(field.getName(), schema(ResolvableType.forType(field.getGenericType(),
                        type)));
                }
            }
        }
        final Map<String, Object> object = object();
        object.put("title", raw.getName());
        object.put("properties", properties);
        return object;
    }

    private static Map<String, Object> enumeration(final Class<?> raw)
    {
        final Map<String, Object> schema = typed("string");
        schema.put("title", raw.getName());
        schema.put("enum", java.util.Arrays.stream(raw.getEnumConstants()).map(c -> ((Enum<?>)c).name()).toList());
        return schema;
    }

    /** The schema of a type Jackson writes as one JSON value, or null for others. */
    private static Map<String, Object> simple(final Class<?> raw)
    {
        if (raw == boolean.class || raw == Boolean.class)
        {
            return typed("boolean");
        }
        if (raw == int.class || raw == Integer.class || raw == short.class || raw == Short.class ||
            raw == byte.class || raw == Byte.class)
        {
            return formatted("integer", "int32");
        }
        if (raw == long.class || raw == Long.class)
        {
            return formatted("integer", "int64");
        }
        if (raw == BigInteger.class)
        {
            return typed("integer");
        }
        if (raw == float.class || raw == Float.class || raw == double.class || raw == Double.class ||
            raw == BigDecimal.class)
        {
            return typed("number");
        }
        if (raw == byte[].class || java.nio.ByteBuffer.class.isAssignableFrom(raw))
        {
            final Map<String, Object> bytes = typed("string");
            bytes.put("contentEncoding", "base64");
            return bytes;
        }
        if (CharSequence.class.isAssignableFrom(raw) || raw == char.class || raw == Character.class ||
            raw == java.util.Locale.class || raw == java.util.Currency.class || raw == java.time.LocalDateTime.class)
        {
            return typed("string");
        }
        return FORMATS.containsKey(raw) ? formatted("string", FORMATS.get(raw)) : null;
    }

    private static Map<String, Object> typed(final String type)
    {
        final Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", type);
        return schema;
    }

    private static Map<String, Object> formatted(final String type, final String format)
    {
        final Map<String, Object> schema = typed(type);
        schema.put("format", format);
        return schema;
    }

    private static Map<String, Object> object()
    {
        return typed("object");
    }

    private static Map<String, Object> array(final Map<String, Object> items)
    {
        final Map<String, Object> schema = typed("array");
        schema.put("items", items);
        return schema;
    }

}
