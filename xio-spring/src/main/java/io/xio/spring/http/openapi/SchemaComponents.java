package io.xio.spring.http.openapi;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The document's {@code components/schemas}: the definitions ({@code $defs}) of every service's description moved
 * there under one name each, and the schemas that refer to them rewritten to {@code #/components/schemas/Name}.
 * Each description names its definitions on its own, so two services may give one name to different types: the
 * same name with the same schema is one component, another schema gets the next free name ({@code Order_2}). Base64
 * strings also get the {@code byte} format, which generators read as bytes. One instance per document; not
 * thread-safe.
 */
final class SchemaComponents
{
    private static final String DEFINITIONS = "#/$defs/";
    private static final String COMPONENTS = "#/components/schemas/";

    private final Map<String, Object> schemas = new TreeMap<>();

    /** The components, by name. */
    Map<String, Object> schemas()
    {
        return schemas;
    }

    /** A reference to the component {@code name}. */
    static Map<String, Object> reference(final String name)
    {
        final Map<String, Object> reference = new LinkedHashMap<>();
        reference.put("$ref", COMPONENTS + name);
        return reference;
    }

    /** Adds {@code schema} under {@code wanted}, or the next free name when that is taken; returns the name. */
    String add(final String wanted, final Map<String, Object> schema)
    {
        String name = wanted;
        for (int i = 2; schemas.containsKey(name); i++)
        {
            name = wanted + "_" + i;
        }
        schemas.put(name, schema);
        return name;
    }

    /**
     * Adds one description's {@code definitions} and returns how that description's schemas are rewritten to refer
     * to the components they became.
     */
    Rewriter addDefinitions(final Map<String, Object> definitions)
    {
        final Map<String, String> renamed = new HashMap<>();
        definitions.keySet().forEach(name -> renamed.put(name, name));
        // A definition whose name another schema holds moves to the next name, which may make a definition that
        // refers to it differ from its namesake in turn: repeat until every name holds an equal schema or none.
        boolean moved = true;
        while (moved)
        {
            moved = false;
            for (final Map.Entry<String, Object> definition : definitions.entrySet())
            {
                final String name = renamed.get(definition.getKey());
                final Object held = schemas.get(name);
                if (held != null && !held.equals(rewrite(definition.getValue(), renamed)))
                {
                    renamed.put(definition.getKey(), nextName(definition.getKey(), name, renamed));
                    moved = true;
                }
            }
        }
        for (final Map.Entry<String, Object> definition : definitions.entrySet())
        {
            schemas.putIfAbsent(renamed.get(definition.getKey()), rewrite(definition.getValue(), renamed));
        }
        return schema -> castMap(rewrite(schema, renamed));
    }

    /** The name after {@code current} for {@code original}, free among this description's other names. */
    private String nextName(final String original, final String current, final Map<String, String> renamed)
    {
        final int underscore = current.lastIndexOf('_');
        int next = current.length() > original.length() && underscore > 0
            ? Integer.parseInt(current.substring(underscore + 1)) + 1 : 2;
        String candidate = original + "_" + next;
        while (isOthers(candidate, original, renamed))
        {
            candidate = original + "_" + ++next;
        }
        return candidate;
    }

    private static boolean isOthers(final String candidate, final String original, final Map<String, String> renamed)
    {
        return renamed.entrySet().stream()
            .anyMatch(entry -> !entry.getKey().equals(original) && entry.getValue().equals(candidate));
    }

    /** A copy of {@code value} whose references to definitions name the components they became. */
    private static Object rewrite(final Object value, final Map<String, String> renamed)
    {
        if (value instanceof Map<?, ?> map)
        {
            final Map<String, Object> copy = new LinkedHashMap<>();
            map.forEach((key, inner) ->
            {
                if ("$ref".equals(key) && inner instanceof String ref && ref.startsWith(DEFINITIONS))
                {
                    final String name = ref.substring(DEFINITIONS.length());
                    copy.put("$ref", COMPONENTS + renamed.getOrDefault(name, name));
                }
                else
                {
                    copy.put(String.valueOf(key), rewrite(inner, renamed));
                }
            });
            if ("base64".equals(copy.get("contentEncoding")) && "string".equals(copy.get("type")))
            {
                // 3.0's spelling beside 2020-12's: generators that read only the format then give bytes too
                copy.putIfAbsent("format", "byte");
            }
            return copy;
        }
        if (value instanceof List<?> list)
        {
            final List<Object> copy = new ArrayList<>(list.size());
            list.forEach(inner -> copy.add(rewrite(inner, renamed)));
            return copy;
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> castMap(final Object map)
    {
        return (Map<String, Object>)map;
    }

    /** Rewrites the schemas of one description to refer to the components. */
    @FunctionalInterface
    interface Rewriter
    {
        /** A copy of {@code schema} whose {@code $ref}s name components. */
        Map<String, Object> rewrite(Map<String, Object> schema);
    }
}
