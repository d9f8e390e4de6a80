package io.xio.spring.http.openapi;

import io.xio.spring.reflection.XioReflection.MethodDescription;
import io.xio.spring.reflection.XioReflection.ServiceDescription;
import org.jspecify.annotations.Nullable;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Builds the OpenAPI 3.1 document of the HTTP/JSON gateway from the reflection's service descriptions
 * ({@link io.xio.spring.reflection.XioReflectionService#descriptions()}): one path {@code POST
 * {prefix}/{service}/{method}} per method, named by the method's wire name, with an operation id generators turn
 * into a method name, a tag per service, the arguments as one JSON object, the answers by the method's kind and the
 * errors as problem details. The schemas are the reflection's JSON Schemas (2020-12, the dialect of OpenAPI 3.1);
 * their definitions become {@code components/schemas}. Methods whose client sends a stream are not served over HTTP:
 * they are left out and named in their tag's {@code x-xio-not-over-http}. The document is a tree of maps and
 * lists that any JSON mapper writes. Configure, then {@link #build} from any one thread at a time.
 */
public final class OpenApiDocumentBuilder
{
    /** The version of OpenAPI the documents follow. */
    public static final String OPENAPI_VERSION = "3.1.1";

    private String prefix = "/xio";
    private String title = "xio services";
    private String version = "1";
    private @Nullable String description;
    private final List<String> servers = new ArrayList<>();

    /** The path the gateway's routes start with, {@code /xio} unless set; empty for the root. */
    public OpenApiDocumentBuilder prefix(final String prefix)
    {
        final String trimmed = Objects.requireNonNull(prefix, "prefix").strip();
        this.prefix = trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
        if (!this.prefix.isEmpty() && !this.prefix.startsWith("/"))
        {
            this.prefix = "/" + this.prefix;
        }
        return this;
    }

    /** The document's title, {@code xio services} unless set. */
    public OpenApiDocumentBuilder title(final String title)
    {
        this.title = Objects.requireNonNull(title, "title");
        return this;
    }

    /** The version of the API the document describes (not of OpenAPI), {@code 1} unless set. */
    public OpenApiDocumentBuilder version(final String version)
    {
        this.version = Objects.requireNonNull(version, "version");
        return this;
    }

    /** The document's description, none unless set. */
    public OpenApiDocumentBuilder description(final @Nullable String description)
    {
        this.description = description;
        return this;
    }

    /** Adds a server's URL (such as {@code https://api.example.com}); a document without one is relative to itself. */
    public OpenApiDocumentBuilder server(final String url)
    {
        servers.add(Objects.requireNonNull(url, "url"));
        return this;
    }

    /** The document of {@code services} (sorted by name, as the reflection lists them). */
    public Map<String, Object> build(final List<ServiceDescription> services)
    {
        final SchemaComponents schemas = new SchemaComponents();
        final String code = "XioErrorCode";
        final String problem = "XioProblem";
        GatewayComponents.addSchemas(schemas, problem, code);
        final OperationWriter operations = new OperationWriter(schemas);
        final List<Object> tags = new ArrayList<>();
        final Map<String, Object> paths = new LinkedHashMap<>();
        for (final ServiceDescription service : services.stream()
            .sorted(Comparator.comparing(ServiceDescription::name)).toList())
        {
            final SchemaComponents.Rewriter rewriter = schemas.addDefinitions(service.definitions());
            final List<String> notOverHttp = new ArrayList<>();
            for (final MethodDescription method : service.methods())
            {
                if (OperationWriter.NOT_OVER_HTTP.contains(method.kind()))
                {
                    notOverHttp.add(method.wireName());
                    continue;
                }
                paths.put(prefix + "/" + segment(service.name()) + "/" + segment(method.wireName()),
                    Map.of("post", operations.operation(service, method, rewriter)));
            }
            tags.add(tag(service, notOverHttp));
        }
        final Map<String, Object> components = new LinkedHashMap<>();
        components.put("schemas", schemas.schemas());
        components.put("responses", GatewayComponents.responses(problem));
        components.put("parameters", GatewayComponents.parameters());
        final Map<String, Object> document = new LinkedHashMap<>();
        document.put("openapi", OPENAPI_VERSION);
        document.put("info", info());
        if (!servers.isEmpty())
        {
            document.put("servers", servers.stream().map(url -> Map.of("url", url)).toList());
        }
        document.put("tags", tags);
        document.put("paths", paths);
        document.put("components", components);
        return document;
    }

    private Map<String, Object> info()
    {
        final Map<String, Object> info = new LinkedHashMap<>();
        info.put("title", title);
        info.put("version", version);
        if (description != null)
        {
            info.put("description", description);
        }
        return info;
    }

    private static Map<String, Object> tag(final ServiceDescription service, final List<String> notOverHttp)
    {
        final Map<String, Object> tag = new LinkedHashMap<>();
        tag.put("name", service.name());
        tag.put("description", "The service " + service.type() + ".");
        if (!notOverHttp.isEmpty())
        {
            tag.put("x-xio-not-over-http", notOverHttp); // the client streams: callable over xio only
        }
        return tag;
    }

    /**
     * A name as one path segment: characters a path may not hold, such as the brackets of {@code byte[]}, are
     * percent-encoded; the parentheses and commas of a wire name are kept.
     */
    static String segment(final String name)
    {
        final StringBuilder segment = new StringBuilder();
        for (int i = 0; i < name.length(); )
        {
            final int c = name.codePointAt(i);
            if (c < 0x80 && (Character.isLetterOrDigit(c) || "-._~!$&'()*+,;=:@".indexOf(c) >= 0))
            {
                segment.append((char)c);
            }
            else
            {
                segment.append(c == ' ' ? "%20" : URLEncoder.encode(Character.toString(c), StandardCharsets.UTF_8));
            }
            i += Character.charCount(c);
        }
        return segment.toString();
    }
}
