package io.xio.it.docs;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.FileVisitResult;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README and the pages under {@code docs/} as a reader meets them: every relative link (and its {@code #anchor})
 * leads to a file of the repository, none out of it; the docs index reaches every page; the README stays short and
 * opens with the two commands (.ci/run runs them from there). Reads files only.
 */
class DocumentationTest
{
    /** Inline links and images, {@code [text](target)}, and reference definitions, {@code [id]: target}. */
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)"
        + "|^\\s{0,3}\\[[^\\]]+]:\\s*<?(\\S+?)>?(?:\\s|$)", Pattern.MULTILINE);

    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");

    private static final Pattern CODE_SPAN = Pattern.compile("`([^`]*)`");

    private static final Set<String> SKIPPED_FOLDERS = Set.of(".git", "target", "node_modules", ".mvn");

    private static Path root;

    /** Every Markdown file of the repository, with its text outside code. */
    private static final Map<Path, String> PAGES = new TreeMap<>();

    @BeforeAll
    static void readPages() throws IOException
    {
        root = Path.of(System.getProperty("xio.root", "..")).toAbsolutePath().normalize();
        Files.walkFileTree(root, new SimpleFileVisitor<>()
        {
            @Override
            public FileVisitResult preVisitDirectory(final Path folder, final BasicFileAttributes attributes)
            {
                return SKIPPED_FOLDERS.contains(folder.getFileName().toString()) ? FileVisitResult.SKIP_SUBTREE
                    : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attributes) throws IOException
            {
                if (file.getFileName().toString().endsWith(".md") && attributes.isRegularFile())
                {
                    PAGES.put(file, withoutCode(Files.readString(file, StandardCharsets.UTF_8)));
                }
                return FileVisitResult.CONTINUE;
            }
        });
        assertThat(PAGES).containsKeys(root.resolve("README.md"), root.resolve("docs/README.md"));
    }

    @Test
    void everyRelativeLinkLeadsToAFileOfTheRepositoryAndToAHeadingThere()
    {
        final List<String> broken = new ArrayList<>();
        PAGES.forEach((page, text) ->
        {
            for (final String target : links(text))
            {
                final String problem = problem(page, target);
                if (problem != null)
                {
                    broken.add(root.relativize(page) + ": (" + target + ") " + problem);
                }
            }
        });
        assertThat(broken).as("links that lead nowhere a reader of the repository can follow").isEmpty();
    }

    @Test
    void theDocsIndexReachesEveryPageOfTheDocs()
    {
        final Path docs = root.resolve("docs");
        final Set<Path> reached = new LinkedHashSet<>();
        final Deque<Path> next = new ArrayDeque<>(List.of(docs.resolve("README.md")));
        while (!next.isEmpty())
        {
            final Path page = next.poll();
            if (page.startsWith(docs) && PAGES.containsKey(page) && reached.add(page))
            {
                for (final String target : links(PAGES.get(page)))
                {
                    if (isRelative(target) && !target.startsWith("#"))
                    {
                        next.add(page.resolveSibling(pathOf(target)).normalize());
                    }
                }
            }
        }
        assertThat(PAGES.keySet().stream().filter(page -> page.startsWith(docs)).map(root::relativize))
            .as("pages under docs/ that the index (docs/README.md) does not lead to")
            .allMatch(page -> reached.contains(root.resolve(page)));
    }

    @Test
    void theReadmeIsShortAndOpensWithTheDemoAndTheTestCommand() throws IOException
    {
        final List<String> lines = Files.readAllLines(root.resolve("README.md"), StandardCharsets.UTF_8);
        assertThat(lines).as("README.md's length").hasSizeLessThan(200);
        final List<String> commands = new ArrayList<>();
        int fences = 0;
        for (final String line : lines)
        {
            if (line.startsWith("```"))
            {
                fences++;
            }
            else if (fences == 1 && !line.isBlank())
            {
                commands.add(line.replaceAll("\\s+#.*$", ""));
            }
        }
        assertThat(commands).as("the README's first code block: run the demo, run the tests").hasSize(2);
        assertThat(commands.get(0)).startsWith("./mvnw ").contains("-pl sample-app").doesNotContain("exec:exec");
        assertThat(commands.get(1)).startsWith("./mvnw ").contains("verify");
    }

    @Test
    void noPageTellsToRunAModuleWithExecOnTheCommandLine()
    {
        // exec:exec with -am resolves the test scope of every module it adds, test jars a compile does not build:
        // such a command works only where an earlier install left them in the local repository. -Prun instead.
        final Pattern execWithAlsoMake = Pattern.compile("-am\\b[^\\n`]*\\bexec:(exec|java)");
        // benchmarks/results/ records the commands past runs were made with.
        PAGES.keySet().stream().filter(page -> !page.startsWith(root.resolve("benchmarks/results")))
            .forEach(page -> assertThat(execWithAlsoMake.matcher(read(page)).find())
                .as(root.relativize(page) + " runs a program with exec:exec and -am; use -Prun").isFalse());
    }

    private static String read(final Path page)
    {
        try
        {
            return Files.readString(page, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new IllegalStateException(page.toString(), e);
        }
    }

    private static List<String> links(final String text)
    {
        final List<String> targets = new ArrayList<>();
        final Matcher matcher = LINK.matcher(text);
        while (matcher.find())
        {
            targets.add(matcher.group(1) != null ? matcher.group(1) : matcher.group(2));
        }
        return targets;
    }

    private static boolean isRelative(final String target)
    {
        return !target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*");
    }

    private static String pathOf(final String target)
    {
        final int hash = target.indexOf('#');
        return hash < 0 ? target : target.substring(0, hash);
    }

    /** What is wrong with a link from the page, or null. */
    private static String problem(final Path page, final String target)
    {
        if (!isRelative(target))
        {
            return target.startsWith("file:") ? "a file URL" : null;
        }
        final String path = pathOf(target);
        final Path file = path.isEmpty() ? page : page.resolveSibling(path).normalize();
        if (!file.startsWith(root))
        {
            return "leads out of the repository";
        }
        if (!Files.exists(file))
        {
            return "no such file";
        }
        final int hash = target.indexOf('#');
        if (hash >= 0 && file.toString().endsWith(".md"))
        {
            final String anchor = target.substring(hash + 1);
            final String text = PAGES.getOrDefault(file, "");
            if (!anchors(text).contains(anchor))
            {
                return "no heading there has the anchor #" + anchor;
            }
        }
        return null;
    }

    /** The anchors GitHub gives the page's headings (a repeated one gets -1, -2, ...) and its HTML anchors. */
    static Set<String> anchors(final String text)
    {
        final Set<String> anchors = new LinkedHashSet<>();
        final Map<String, Integer> seen = new HashMap<>();
        for (final String line : text.split("\n"))
        {
            final Matcher heading = HEADING.matcher(line);
            if (heading.matches())
            {
                final String slug = slug(heading.group(1));
                final int count = seen.merge(slug, 1, Integer::sum);
                anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
            }
            final Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find())
            {
                anchors.add(html.group(1));
            }
        }
        return anchors;
    }

    /** GitHub's slug of a heading: its text as shown, lower case, punctuation but '-' and '_' dropped, '-' for ' '. */
    static String slug(final String heading)
    {
        final String shown = heading.replaceAll("!?\\[([^\\]]*)]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
        return shown.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    /** The text with fenced code blocks and inline code spans blanked, so that code is neither link nor heading. */
    private static String withoutCode(final String text)
    {
        final StringBuilder out = new StringBuilder();
        boolean fenced = false;
        for (final String line : text.split("\n", -1))
        {
            if (line.stripLeading().startsWith("```") || line.stripLeading().startsWith("~~~"))
            {
                fenced = !fenced;
                out.append('\n');
                continue;
            }
            // A code span keeps its words (a heading's anchor has them) but can hold no link.
            out.append(fenced ? "" : CODE_SPAN.matcher(line)
                .replaceAll(span -> Matcher.quoteReplacement(span.group(1).replaceAll("[\\[\\]()]", ""))))
                .append('\n');
        }
        return out.toString();
    }
}
