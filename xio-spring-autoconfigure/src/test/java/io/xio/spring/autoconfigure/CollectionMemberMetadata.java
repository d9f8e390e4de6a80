package io.xio.spring.autoconfigure;

import com.sun.source.doctree.DocCommentTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePathScanner;
import org.springframework.beans.BeanUtils;
import org.springframework.util.unit.DataSize;
import tools.jackson.core.util.DefaultIndenter;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The IDE metadata of the properties of list elements and map values ({@code xio.portals[].uri},
 * {@code xio.clients.*.timeout}, {@code xio.server.services.*.max-concurrent-calls}), which Boot's configuration
 * processor does not generate: built from the property classes (names, types, defaults of a new instance) and
 * their fields' Javadoc (read from the source with javac's tree API, as the processor reads it), and kept in the
 * module's additional metadata, which the processor merges into what IDEs read.
 */
final class CollectionMemberMetadata
{
    /** The additional metadata, relative to the module (the tests' working directory). */
    static final Path ADDITIONAL = Path.of("src/main/resources/META-INF/additional-spring-configuration-metadata.json");

    private static final Path SOURCE = Path.of("src/main/java/io/xio/spring/autoconfigure/XioProperties.java");

    /** Each list or map property whose elements are objects, the prefix of their members, and the element type. */
    private static final Map<String, Class<?>> COLLECTIONS = Map.of(
        "xio.portals[].", XioProperties.Portal.class,
        "xio.clients.*.", XioProperties.NamedClient.class,
        "xio.server.services.*.", XioProperties.Service.class);

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private CollectionMemberMetadata()
    {
    }

    /** The element types whose members this class generates entries for. */
    static Set<Class<?>> generatedCollections()
    {
        return Set.copyOf(COLLECTIONS.values());
    }

    /** The element types of every list or map property, at any depth of XioProperties, that are its own classes. */
    static Set<Class<?>> collectionsOfPropertyObjects()
    {
        final List<Class<?>> classes = new ArrayList<>(List.of(XioProperties.class.getDeclaredClasses()));
        classes.add(XioProperties.class);
        final Set<Class<?>> found = new HashSet<>();
        for (final Class<?> type : classes)
        {
            for (final Field field : type.getDeclaredFields())
            {
                final boolean collection =
                    List.class.isAssignableFrom(field.getType()) || Map.class.isAssignableFrom(field.getType());
                if (collection && field.getGenericType() instanceof ParameterizedType generic)
                {
                    final Type[] arguments = generic.getActualTypeArguments();
                    if (arguments[arguments.length - 1] instanceof Class<?> element
                        && element.getDeclaringClass() == XioProperties.class)
                    {
                        found.add(element);
                    }
                }
            }
        }
        return found;
    }

    /** Whether a metadata entry is one of those this class generates. */
    static boolean isCollectionMember(final String name)
    {
        return COLLECTIONS.keySet().stream().anyMatch(name::startsWith);
    }

    /** The entries for every member of every list element and map value, sorted by name. */
    static List<ObjectNode> generate() throws IOException
    {
        final Map<String, String> javadoc = fieldJavadoc(SOURCE);
        final List<ObjectNode> entries = new ArrayList<>();
        COLLECTIONS.forEach((prefix, type) -> members(prefix, BeanUtils.instantiateClass(type), javadoc, entries));
        entries.sort(Comparator.comparing(entry -> entry.get("name").asString()));
        return entries;
    }

    /** The additional metadata's collection-member entries, as committed. */
    static List<JsonNode> committed() throws IOException
    {
        final List<JsonNode> entries = new ArrayList<>();
        JSON.readTree(ADDITIONAL.toFile()).get("properties").forEach(entry ->
        {
            if (isCollectionMember(entry.get("name").asString()))
            {
                entries.add(entry);
            }
        });
        return entries;
    }

    /** Rewrites the additional metadata with the generated entries in place of the committed ones. */
    static void write(final List<ObjectNode> generated) throws IOException
    {
        final ObjectNode metadata = (ObjectNode) JSON.readTree(ADDITIONAL.toFile());
        final ArrayNode properties = JsonNodeFactory.instance.arrayNode();
        metadata.get("properties").forEach(entry ->
        {
            if (!isCollectionMember(entry.get("name").asString()))
            {
                properties.add(entry);
            }
        });
        generated.forEach(properties::add);
        metadata.set("properties", properties);
        // Two-space indents, "name": value, one element a line: the layout the file was written in by hand.
        final DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
        final DefaultPrettyPrinter layout = new DefaultPrettyPrinter()
            .withSeparators(Separators.createDefaultInstance().withObjectNameValueSpacing(Separators.Spacing.AFTER))
            .withObjectIndenter(indenter).withArrayIndenter(indenter);
        final String json = JSON.writer().with(layout).writeValueAsString(metadata);
        Files.writeString(ADDITIONAL, json + "\n", StandardCharsets.UTF_8);
    }

    private static void members(final String prefix, final Object instance, final Map<String, String> javadoc,
        final List<ObjectNode> entries)
    {
        final Class<?> type = instance.getClass();
        for (final Field field : type.getDeclaredFields())
        {
            final PropertyDescriptor property = BeanUtils.getPropertyDescriptor(type, field.getName());
            if (Modifier.isStatic(field.getModifiers()) || property == null || property.getReadMethod() == null)
            {
                continue; // not a bound property (internal state such as whether a value was set)
            }
            final Object value;
            try
            {
                value = property.getReadMethod().invoke(instance);
            }
            catch (final ReflectiveOperationException e)
            {
                throw new IllegalStateException(type.getName() + "." + field.getName(), e);
            }
            final String name = prefix + kebab(field.getName());
            if (field.getType().getDeclaringClass() == XioProperties.class && !field.getType().isEnum())
            {
                if (value == null)
                {
                    throw new IllegalStateException(name + ": a nested group must be created with its object");
                }
                members(name + ".", value, javadoc, entries);
                continue;
            }
            if (property.getWriteMethod() == null)
            {
                continue; // read-only: the binder cannot set it
            }
            final String description = javadoc.get(type.getSimpleName() + "#" + field.getName());
            if (description == null)
            {
                throw new IllegalStateException(type.getName() + "." + field.getName()
                    + " has no Javadoc, which is the description IDEs show for " + name);
            }
            final ObjectNode entry = JsonNodeFactory.instance.objectNode();
            entry.put("name", name);
            entry.put("type", typeName(field));
            entry.put("description", description);
            entry.put("sourceType", type.getName());
            final JsonNode defaultValue = defaultValue(value);
            if (defaultValue != null)
            {
                entry.set("defaultValue", defaultValue);
            }
            entries.add(entry);
        }
    }

    private static String typeName(final Field field)
    {
        final Class<?> type = field.getType();
        if (type.isPrimitive())
        {
            return boxed(type).getName();
        }
        return field.getGenericType().getTypeName();
    }

    private static Class<?> boxed(final Class<?> primitive)
    {
        return java.lang.invoke.MethodType.methodType(primitive).wrap().returnType();
    }

    /** A default the way the processor writes one: durations and sizes in their largest exact unit, enums kebab. */
    private static JsonNode defaultValue(final Object value)
    {
        final JsonNodeFactory nodes = JsonNodeFactory.instance;
        if (value == null || value instanceof Collection<?> c && c.isEmpty()
            || value instanceof Map<?, ?> m && m.isEmpty())
        {
            return null;
        }
        if (value instanceof Boolean b)
        {
            return nodes.booleanNode(b);
        }
        if (value instanceof Integer i)
        {
            return nodes.numberNode(i);
        }
        if (value instanceof Long l)
        {
            // As the committed file reads back: an int where it fits.
            return l == l.intValue() ? nodes.numberNode(l.intValue()) : nodes.numberNode(l);
        }
        if (value instanceof Enum<?> e)
        {
            return nodes.stringNode(e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        if (value instanceof Duration d)
        {
            return nodes.stringNode(duration(d));
        }
        if (value instanceof DataSize s)
        {
            return nodes.stringNode(dataSize(s.toBytes()));
        }
        if (value instanceof Collection<?> c)
        {
            final ArrayNode array = nodes.arrayNode();
            c.forEach(element -> array.add(element instanceof Class<?> k ? k.getName() : String.valueOf(element)));
            return array;
        }
        return nodes.stringNode(String.valueOf(value));
    }

    private static String duration(final Duration value)
    {
        final Object[][] units = {{ChronoUnit.DAYS, "d"}, {ChronoUnit.HOURS, "h"}, {ChronoUnit.MINUTES, "m"},
            {ChronoUnit.SECONDS, "s"}, {ChronoUnit.MILLIS, "ms"}, {ChronoUnit.MICROS, "us"}};
        final long nanos = value.toNanos();
        for (final Object[] unit : units)
        {
            final long unitNanos = ((ChronoUnit) unit[0]).getDuration().toNanos();
            if (nanos != 0 && nanos % unitNanos == 0)
            {
                return nanos / unitNanos + (String) unit[1];
            }
        }
        return nanos == 0 ? "0ms" : nanos + "ns";
    }

    private static String dataSize(final long bytes)
    {
        final String[] units = {"TB", "GB", "MB", "KB"};
        for (int i = 0; i < units.length; i++)
        {
            final long unit = 1L << (10 * (units.length - i));
            if (bytes != 0 && bytes % unit == 0)
            {
                return bytes / unit + units[i];
            }
        }
        return bytes + "B";
    }

    private static String kebab(final String camel)
    {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /**
     * The Javadoc of every field of the file's classes, keyed {@code SimpleClassName#field}, with line breaks and
     * repeated spaces folded as the configuration processor folds them (inline tags such as {@code {@code}} kept).
     */
    private static Map<String, String> fieldJavadoc(final Path source) throws IOException
    {
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        try (StandardJavaFileManager files = javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8))
        {
            final JavacTask task = (JavacTask) javac.getTask(null, files, null, List.of("-proc:none"), null,
                files.getJavaFileObjects(source.toFile()));
            final DocTrees docTrees = DocTrees.instance(task);
            final Map<String, String> javadoc = new HashMap<>();
            for (final CompilationUnitTree unit : task.parse())
            {
                new TreePathScanner<Void, Void>()
                {
                    private final Deque<String> classes = new ArrayDeque<>();

                    @Override
                    public Void visitClass(final ClassTree tree, final Void unused)
                    {
                        classes.push(tree.getSimpleName().toString());
                        try
                        {
                            return super.visitClass(tree, unused);
                        }
                        finally
                        {
                            classes.pop();
                        }
                    }

                    @Override
                    public Void visitVariable(final VariableTree tree, final Void unused)
                    {
                        final Tree parent = getCurrentPath().getParentPath().getLeaf();
                        final DocCommentTree doc = docTrees.getDocCommentTree(getCurrentPath());
                        if (parent instanceof ClassTree && doc != null)
                        {
                            final String text = doc.getFullBody().stream().map(Object::toString)
                                .collect(Collectors.joining()).replaceAll("\\s+", " ").trim();
                            javadoc.put(classes.peek() + "#" + tree.getName(), text);
                        }
                        return null;
                    }
                }.scan(unit, null);
            }
            return javadoc;
        }
    }
}
