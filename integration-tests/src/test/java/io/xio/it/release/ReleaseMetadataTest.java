package io.xio.it.release;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.xml.parsers.DocumentBuilderFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a consumer of the published artifacts relies on, read from the reactor's poms: xio-bom manages every
 * published module (a module is published unless its pom sets {@code maven.deploy.skip}) at the reactor's version
 * and nothing else, so a new module cannot be left out of it; it has no parent, so importing it brings no third-party
 * versions; every published module has a name and a description; the BOM carries the root's licence and scm.
 * Runs in one thread (JUnit's default); it only reads files.
 */
class ReleaseMetadataTest
{
    private static final String BOM = "xio-bom";

    private static Path root;
    private static Element rootPom;
    /** Every module of the reactor but the BOM, by artifactId. */
    private static final Map<String, Element> MODULES = new LinkedHashMap<>();

    @BeforeAll
    static void readPoms() throws Exception
    {
        root = Path.of(System.getProperty("xio.root", "..")).toAbsolutePath().normalize();
        rootPom = pom(root.resolve("pom.xml"));
        for (final Element module : children(child(rootPom, "modules"), "module"))
        {
            final String folder = module.getTextContent().trim();
            if (!folder.equals(BOM))
            {
                final Element pom = pom(root.resolve(folder).resolve("pom.xml"));
                MODULES.put(text(pom, "artifactId"), pom);
            }
        }
    }

    @Test
    void bomManagesEveryPublishedModuleAtTheReactorVersionAndNothingElse()
    {
        final Element bom = pom(root.resolve(BOM).resolve("pom.xml"));
        assertThat(text(bom, "version")).isEqualTo(text(rootPom, "version"));
        assertThat(text(bom, "groupId")).isEqualTo(text(rootPom, "groupId"));

        final List<String> managed = new ArrayList<>();
        for (final Element dependency : children(child(child(bom, "dependencyManagement"), "dependencies"),
            "dependency"))
        {
            assertThat(text(dependency, "groupId")).isEqualTo("io.xio");
            assertThat(text(dependency, "version")).isEqualTo("${project.version}");
            assertThat(child(dependency, "scope")).as("an import in the BOM would hand on its versions").isNull();
            managed.add(text(dependency, "artifactId"));
        }
        assertThat(managed).containsExactlyInAnyOrderElementsOf(published());
        // The unpublished modules exist and are left out: the deploy-skip rule is what decides.
        assertThat(MODULES.keySet()).contains("sample-app", "integration-tests", "benchmarks", "kotlin-tests");
        assertThat(managed).doesNotContain("sample-app", "integration-tests", "benchmarks", "kotlin-tests");
    }

    @Test
    void bomHasNoParentSoImportingItBringsNoThirdPartyVersions()
    {
        final Element bom = pom(root.resolve(BOM).resolve("pom.xml"));
        assertThat(child(bom, "parent")).isNull();
        assertThat(text(bom, "packaging")).isEqualTo("pom");
    }

    @Test
    void bomPinsTheInstallAndDeployPluginsAtTheRootsVersions()
    {
        final Element bom = pom(root.resolve(BOM).resolve("pom.xml"));
        final Element properties = child(rootPom, "properties");
        final Map<String, String> pinned = new LinkedHashMap<>();
        for (final Element plugin : children(child(child(child(bom, "build"), "pluginManagement"), "plugins"),
            "plugin"))
        {
            pinned.put(text(plugin, "artifactId"), text(plugin, "version"));
        }
        assertThat(pinned).containsOnlyKeys("maven-install-plugin", "maven-deploy-plugin");
        pinned.forEach((artifactId, version) ->
            assertThat(version).as(artifactId).isEqualTo(text(properties, artifactId + ".version")));
    }

    @Test
    void bomCarriesTheRootsLicenceScmAndUrl()
    {
        final Element bom = pom(root.resolve(BOM).resolve("pom.xml"));
        for (final String element : List.of("url", "licenses", "scm", "organization", "developers"))
        {
            assertThat(child(rootPom, element)).as(element).isNotNull();
            assertThat(child(bom, element).getTextContent().strip().replaceAll("\\s+", " "))
                .as(element)
                .isEqualTo(child(rootPom, element).getTextContent().strip().replaceAll("\\s+", " "));
        }
        assertThat(text(child(child(rootPom, "licenses"), "license"), "name")).isEqualTo("Apache-2.0");
        assertThat(root.resolve("LICENSE")).isRegularFile();
    }

    @Test
    void everyPublishedModuleHasANameAndADescription()
    {
        assertThat(published()).contains("xio-engine", "xio-spring-boot-starter");
        for (final String artifactId : published())
        {
            final Element pom = MODULES.get(artifactId);
            assertThat(child(pom, "name")).as(artifactId + " <name>").isNotNull();
            assertThat(text(pom, "name")).as(artifactId + " <name>").isNotBlank();
            assertThat(child(pom, "description")).as(artifactId + " <description>").isNotNull();
            assertThat(text(pom, "description")).as(artifactId + " <description>").isNotBlank();
        }
    }

    private static List<String> published()
    {
        final List<String> published = new ArrayList<>();
        MODULES.forEach((artifactId, pom) ->
        {
            final Element properties = child(pom, "properties");
            final Element skip = properties == null ? null : child(properties, "maven.deploy.skip");
            if (skip == null || !skip.getTextContent().trim().equals("true"))
            {
                published.add(artifactId);
            }
        });
        return published;
    }

    private static Element pom(final Path file)
    {
        assertThat(file).isRegularFile();
        try (InputStream in = Files.newInputStream(file))
        {
            final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            final Document document = factory.newDocumentBuilder().parse(in);
            return document.getDocumentElement();
        }
        catch (final Exception e)
        {
            throw new AssertionError("cannot read " + file, e);
        }
    }

    /** The first child element of that name, or null. */
    private static Element child(final Element parent, final String name)
    {
        final List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0);
    }

    private static List<Element> children(final Element parent, final String name)
    {
        final List<Element> found = new ArrayList<>();
        final NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++)
        {
            final Node node = nodes.item(i);
            if (node instanceof Element element && element.getTagName().equals(name))
            {
                found.add(element);
            }
        }
        return found;
    }

    private static String text(final Element parent, final String name)
    {
        final Element element = child(parent, name);
        assertThat(element).as("<" + name + "> in <" + parent.getTagName() + ">").isNotNull();
        return element.getTextContent().trim();
    }
}
