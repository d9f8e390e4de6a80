package io.xio.spring.autoconfigure.http;

import org.openapitools.codegen.DefaultGenerator;
import org.openapitools.codegen.config.CodegenConfigurator;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Java client generated from an OpenAPI document by OpenAPI Generator, in this process: its {@code java}
 * generator with the {@code native} library (java.net.http and Jackson, no other HTTP stack), compiled with the
 * JDK's compiler against the test class path and loaded in a class loader of its own, which {@link #close()}
 * closes. Its classes live under {@value #PACKAGE}.
 */
final class GeneratedClient implements AutoCloseable
{
    /** The package of the generated invoker; its APIs are in {@code .api}, its models in {@code .model}. */
    static final String PACKAGE = "shop.client";

    private final URLClassLoader loader;

    private GeneratedClient(final URLClassLoader loader)
    {
        this.loader = loader;
    }

    /** Generates the client of {@code document} (OpenAPI JSON) under {@code directory}, compiles and loads it. */
    static GeneratedClient generate(final String document, final Path directory) throws IOException
    {
        final Path spec = Files.writeString(directory.resolve("openapi.json"), document, StandardCharsets.UTF_8);
        final Path sources = directory.resolve("client");
        final CodegenConfigurator configurator = new CodegenConfigurator()
            .setGeneratorName("java")
            .setLibrary("native")
            .setInputSpec(spec.toUri().toString())
            .setOutputDir(sources.toString())
            .setInvokerPackage(PACKAGE)
            .setApiPackage(PACKAGE + ".api")
            .setModelPackage(PACKAGE + ".model")
            .addAdditionalProperty("openApiNullable", false)
            .addAdditionalProperty("useJakartaEe", true)
            .addAdditionalProperty("hideGenerationTimestamp", true)
            .addGlobalProperty("apiTests", "false")
            .addGlobalProperty("modelTests", "false")
            .addGlobalProperty("apiDocs", "false")
            .addGlobalProperty("modelDocs", "false");
        new DefaultGenerator().opts(configurator.toClientOptInput()).generate();
        final Path classes = Files.createDirectories(directory.resolve("classes"));
        compile(sources.resolve("src/main/java"), classes);
        return new GeneratedClient(new URLClassLoader(new URL[] {url(classes)},
            GeneratedClient.class.getClassLoader()));
    }

    private static void compile(final Path sources, final Path classes) throws IOException
    {
        final List<Path> files;
        try (Stream<Path> walk = Files.walk(sources))
        {
            files = walk.filter(file -> file.toString().endsWith(".java")).toList();
        }
        final JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        final DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager manager = compiler.getStandardFileManager(diagnostics, null,
            StandardCharsets.UTF_8))
        {
            final boolean compiled = compiler.getTask(null, manager, diagnostics,
                List.of("-proc:none", "-nowarn", "-classpath", System.getProperty("java.class.path"), "-d",
                    classes.toString()),
                null, manager.getJavaFileObjectsFromPaths(files)).call();
            if (!compiled)
            {
                throw new IllegalStateException("the generated client does not compile:\n" +
                    diagnostics.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                        .map(Object::toString).limit(20).collect(Collectors.joining("\n")));
            }
        }
    }

    private static URL url(final Path path)
    {
        try
        {
            return path.toUri().toURL();
        }
        catch (final MalformedURLException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** The generated class {@code name}, relative to {@value #PACKAGE} ({@code api.ShopCatalogApi}). */
    Class<?> type(final String name) throws ClassNotFoundException
    {
        return Class.forName(PACKAGE + "." + name, true, loader);
    }

    @Override
    public void close() throws IOException
    {
        loader.close();
    }
}
