package io.xio.it.architecture;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How big a class may grow before it is split by ownership: a file of the session layer (its subpackages too) past 500
 * lines, or any main class past 800, has taken on a second job (the {@code @ConfigurationProperties} tree aside, which
 * mirrors the properties it binds). Reads files only.
 */
class SourceSizeTest
{
    /** The session layer: its package and every subpackage, as a path prefix. */
    private static final String SESSION_LAYER = "xio-engine/src/main/java/io/xio/engine/session/";
    private static final int SESSION_LAYER_LINES = 500;
    private static final int CLASS_LINES = 800;
    /** Properties bound from configuration: one field and its Javadoc per property, nothing else to split. */
    private static final Set<String> PROPERTY_TREES = Set.of("XioProperties.java");

    /** Lines of every main Java file of the repository, by its path from the root. */
    private static final Map<String, Integer> LINES = new TreeMap<>();

    @BeforeAll
    static void countLines() throws IOException
    {
        final Path root = Path.of(System.getProperty("xio.root", "..")).toAbsolutePath().normalize();
        try (Stream<Path> files = Files.walk(root))
        {
            for (final Path file : files.filter(SourceSizeTest::isMainJava).toList())
            {
                LINES.put(root.relativize(file).toString().replace('\\', '/'),
                    Files.readAllLines(file, StandardCharsets.UTF_8).size());
            }
        }
        assertThat(LINES).containsKey("xio-engine/src/main/java/io/xio/engine/XioEngine.java");
    }

    private static boolean isMainJava(final Path file)
    {
        final String path = file.toString().replace('\\', '/');
        return path.endsWith(".java") && path.contains("/src/main/java/") && !path.contains("/target/") &&
            !path.contains("/.git/");
    }

    @Test
    void noClassHasOutgrownItsJob()
    {
        assertThat(oversized(LINES)).isEmpty();
    }

    @Test
    void aSessionLayerFileOverFiveHundredLinesOrAClassOverEightHundredIsReported()
    {
        final Map<String, Integer> deliberate = Map.of(
            SESSION_LAYER + "Grown.java", SESSION_LAYER_LINES + 1,
            SESSION_LAYER + "Fits.java", SESSION_LAYER_LINES,
            SESSION_LAYER + "call/Grown.java", SESSION_LAYER_LINES + 1,
            "xio-engine/src/main/java/io/xio/engine/Grown.java", CLASS_LINES + 1,
            "xio-engine/src/main/java/io/xio/engine/Fits.java", CLASS_LINES,
            "xio-spring-autoconfigure/src/main/java/io/xio/spring/autoconfigure/XioProperties.java", 2 * CLASS_LINES);
        assertThat(oversized(deliberate)).containsExactlyInAnyOrder(
            SESSION_LAYER + "Grown.java (501 lines, limit 500)",
            SESSION_LAYER + "call/Grown.java (501 lines, limit 500)",
            "xio-engine/src/main/java/io/xio/engine/Grown.java (801 lines, limit 800)");
    }

    /** The files over their limit, each with its count and limit. */
    private static List<String> oversized(final Map<String, Integer> lines)
    {
        final List<String> found = new ArrayList<>();
        lines.forEach((path, count) ->
        {
            final int limit = path.startsWith(SESSION_LAYER) ? SESSION_LAYER_LINES : CLASS_LINES;
            if (count > limit && !PROPERTY_TREES.contains(fileName(path)))
            {
                found.add(path + " (" + count + " lines, limit " + limit + ")");
            }
        });
        return found;
    }

    private static String fileName(final String path)
    {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
