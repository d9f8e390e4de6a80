package io.xio.spring.reflection;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.jsonFormatVisitors.JsonAnyFormatVisitor;
import tools.jackson.databind.jsonFormatVisitors.JsonBooleanFormatVisitor;
import tools.jackson.databind.jsonFormatVisitors.JsonFormatVisitorWrapper;
import tools.jackson.databind.jsonFormatVisitors.JsonIntegerFormatVisitor;
import tools.jackson.databind.jsonFormatVisitors.JsonNumberFormatVisitor;
import tools.jackson.databind.jsonFormatVisitors.JsonStringFormatVisitor;
import tools.jackson.databind.ser.BeanPropertyWriter;
import tools.jackson.databind.ser.PropertyWriter;
import tools.jackson.databind.ser.bean.BeanSerializerBase;

import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes JSON Schemas (2020-12) of Java types as a given Jackson mapper writes them: a type is an object of
 * properties only when the mapper writes it with its bean serializer, and then its properties are the ones that
 * serializer writes, under the names it writes (naming strategy, {@code @JsonProperty}, {@code @JsonIgnore}
 * honoured); enums are their names, collections and arrays arrays, maps objects, {@code byte[]} base64, and every
 * other type (such as {@code java.time.Period}, {@code java.util.Date}, {@code AtomicLong}) the one string, number
 * or boolean its serializer says it writes; an {@code Optional} is its value's schema or {@code null}. Every bean
 * and enum becomes a definition that schemas refer to with {@code $ref} ({@code #/$defs/Name}), so types that
 * contain themselves end; at most {@value #MAX_DEFINITIONS} definitions are written, further types are described
 * as any value. One instance per description; not thread-safe.
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

    private final ObjectMapper mapper;
    private final SerializationContext serializers;
    private final Map<String, Object> definitions = new TreeMap<>();
    /** Definition names by the type's canonical name with its generics. */
    private final Map<String, String> named = new HashMap<>();

    /** Schemas of the JSON {@code mapper} reads and writes. */
    JsonSchemas(final ObjectMapper mapper)
    {
        this.mapper = mapper;
        this.serializers = mapper._serializationContext();
    }

    /** The definitions the schemas written so far refer to, by name. */
    Map<String, Object> definitions()
    {
        return definitions;
    }

    /** The schema of {@code type} (a {@link Type} as reflection gives it, type variables resolved). */
    Map<String, Object> schema(final Type type)
    {
        return schema(mapper.constructType(type));
    }

    private Map<String, Object> schema(final JavaType type)
    {
        final Class<?> raw = type.getRawClass();
        final Map<String, Object> simple = simple(raw);
        if (simple != null)
        {
            return simple;
        }
        if (type.isArrayType() || type.isCollectionLikeType())
        {
            return array(schema(type.getContentType()));
        }
        if (type.isReferenceType())
        {
            return nullable(schema(type.getReferencedType())); // Optional, AtomicReference: the value or null
        }
        if (Iterable.class.isAssignableFrom(raw))
        {
            return array(schema(type.findTypeParameters(Iterable.class)[0]));
        }
        if (type.isMapLikeType())
        {
            final Map<String, Object> map = typed("object");
            map.put("additionalProperties", schema(type.getContentType()));
            return map;
        }
        if (type.isJavaLangObject() || type.isInterface() || type.isAbstract())
        {
            return any(); // the type does not say which
        }
        final ValueSerializer<Object> serializer;
        try
        {
            serializer = serializers.findValueSerializer(type);
        }
        catch (final RuntimeException | StackOverflowError ex)
        {
            // The mapper cannot write it: no schema promises a form. (Jackson resolves the serializers of final
            // property types at once, so a record whose properties are ever new parameterisations of itself,
            // Chain<T>(T value, Chain<List<T>> next), overflows the stack here as it would when written.)
            return any();
        }
        if (type.isEnumType() || serializer instanceof BeanSerializerBase)
        {
            return reference(type, serializer);
        }
        return scalar(type);
    }

    /** A {@code $ref} to the definition of a bean or enum, written the first time it is met. */
    private Map<String, Object> reference(final JavaType type, final ValueSerializer<Object> serializer)
    {
        String name = named.get(type.toCanonical());
        if (name == null)
        {
            if (definitions.size() >= MAX_DEFINITIONS)
            {
                final Map<String, Object> any = any();
                any.put("description", "not described: more than " + MAX_DEFINITIONS + " types");
                return any;
            }
            name = uniqueName(type);
            named.put(type.toCanonical(), name);
            definitions.put(name, Map.of()); // taken before its properties are described: they may refer to it
            definitions.put(name, type.isEnumType() ? enumeration(type.getRawClass())
                : properties(type, (BeanSerializerBase)serializer));
        }
        final Map<String, Object> reference = new LinkedHashMap<>();
        reference.put("$ref", "#/$defs/" + name);
        return reference;
    }

    private String uniqueName(final JavaType type)
    {
        final StringBuilder name = new StringBuilder(type.getRawClass().getSimpleName());
        for (int i = 0; i < type.containedTypeCount(); i++)
        {
            name.append("Of").append(type.containedType(i).getRawClass().getSimpleName());
        }
        String unique = name.toString();
        for (int i = 2; definitions.containsKey(unique); i++)
        {
            unique = name + "_" + i; // another type of the same simple name
        }
        return unique;
    }

    /** The properties the mapper's bean serializer writes, under the names it writes them. */
    private Map<String, Object> properties(final JavaType type, final BeanSerializerBase serializer)
    {
        final Map<String, Object> properties = new LinkedHashMap<>();
        for (final Iterator<PropertyWriter> it = serializer.properties(); it.hasNext(); )
        {
            final PropertyWriter property = it.next();
            properties.put(property.getName(),
                property instanceof BeanPropertyWriter bean ? schema(bean.getType()) : any());
        }
        final Map<String, Object> object = typed("object");
        object.put("title", type.getRawClass().getSimpleName());
        object.put("properties", properties);
        return object;
    }

    private static Map<String, Object> enumeration(final Class<?> raw)
    {
        final Map<String, Object> schema = typed("string");
        schema.put("title", raw.getSimpleName());
        schema.put("enum", java.util.Arrays.stream(raw.getEnumConstants()).map(c -> ((Enum<?>)c).name()).toList());
        return schema;
    }

    /** The one JSON value the mapper's serializer of a type that is no bean says it writes; any value if none. */
    private Map<String, Object> scalar(final JavaType type)
    {
        final @Nullable String[] kind = new String[1];
        try
        {
            mapper.acceptJsonFormatVisitor(type, new JsonFormatVisitorWrapper.Base()
            {
                @Override
                public @Nullable JsonStringFormatVisitor expectStringFormat(final JavaType visited)
                {
                    kind[0] = "string";
                    return null;
                }

                @Override
                public @Nullable JsonNumberFormatVisitor expectNumberFormat(final JavaType visited)
                {
                    kind[0] = "number";
                    return null;
                }

                @Override
                public @Nullable JsonIntegerFormatVisitor expectIntegerFormat(final JavaType visited)
                {
                    kind[0] = "integer";
                    return null;
                }

                @Override
                public @Nullable JsonBooleanFormatVisitor expectBooleanFormat(final JavaType visited)
                {
                    kind[0] = "boolean";
                    return null;
                }

                @Override
                public @Nullable JsonAnyFormatVisitor expectAnyFormat(final JavaType visited)
                {
                    kind[0] = null;
                    return null;
                }
            });
        }
        catch (final RuntimeException ex)
        {
            kind[0] = null; // a serializer that cannot say: any value
        }
        return kind[0] == null ? any() : typed(kind[0]);
    }

    /** The schema of a type Jackson writes as one JSON value whatever its configuration, or null for others. */
    private static @Nullable Map<String, Object> simple(final Class<?> raw)
    {
        if (raw == boolean.class || raw == Boolean.class)
        {
            return typed("boolean");
        }
        if (raw == Void.class)
        {
            return typed("null"); // Mono<Void>, CompletableFuture<Void>: JSON null
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

    /**
     * {@code schema} or null, as JSON Schema 2020-12 says it: {@code null} among the types of a typed schema, else
     * one of the schema and {@code null}; any value already takes null.
     */
    private static Map<String, Object> nullable(final Map<String, Object> schema)
    {
        if (schema.isEmpty())
        {
            return schema;
        }
        if (schema.get("type") instanceof String type && !schema.containsKey("enum"))
        {
            schema.put("type", java.util.List.of(type, "null"));
            return schema;
        }
        final Map<String, Object> either = new LinkedHashMap<>();
        either.put("anyOf", java.util.List.of(schema, typed("null")));
        return either;
    }

    private static Map<String, Object> any()
    {
        return new LinkedHashMap<>();
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

    private static Map<String, Object> array(final Map<String, Object> items)
    {
        final Map<String, Object> schema = typed("array");
        schema.put("items", items);
        return schema;
    }
}
