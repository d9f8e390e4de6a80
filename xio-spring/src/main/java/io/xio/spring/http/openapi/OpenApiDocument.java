package io.xio.spring.http.openapi;

import io.xio.spring.error.XioErrorCode;
import io.xio.spring.http.XioHttpCalls;
import io.xio.spring.http.XioHttpException;
import io.xio.spring.reflection.XioReflection.ServiceDescription;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.ObjectMapper;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The OpenAPI document a gateway serves at {@code GET {prefix}}{@value #PATH}: built the first time it is asked for
 * once the services are exported, then its bytes kept (the exported services do not change while the application
 * runs). Before the services are exported it answers 503 and builds nothing. The path has one segment and the
 * method {@code GET}, so no route of a service ({@code POST {prefix}/{service}/{method}}) can be it, whatever the
 * service is named. Thread-safe: any of the web server's threads.
 */
public final class OpenApiDocument
{
    /** Where the document is, after the gateway's prefix. */
    public static final String PATH = "/openapi.json";

    private final Supplier<List<ServiceDescription>> services;
    private final BooleanSupplier exported;
    private final OpenApiDocumentBuilder builder;
    private final ObjectMapper json;
    private final XioHttpCalls calls;
    private volatile byte @Nullable [] bytes;

    /**
     * @param services the descriptions of the exported services, asked once
     * @param exported whether the services are exported yet
     * @param builder the document's settings (prefix, title, servers)
     * @param json the mapper that writes the document
     * @param calls the gateway, which words the answer before the services are exported
     */
    public OpenApiDocument(final Supplier<List<ServiceDescription>> services, final BooleanSupplier exported,
        final OpenApiDocumentBuilder builder, final ObjectMapper json, final XioHttpCalls calls)
    {
        this.services = services;
        this.exported = exported;
        this.builder = builder;
        this.json = json;
        this.calls = calls;
    }

    /** The document as JSON, or a 503 problem while the services are not exported yet. */
    public XioHttpCalls.Answer answer()
    {
        final byte[] built = built();
        return built == null ? calls.problem(new XioHttpException(503, XioErrorCode.UNAVAILABLE,
            "the services are not exported yet"), null) : new XioHttpCalls.Answer(200, XioHttpCalls.JSON, built);
    }

    private byte @Nullable [] built()
    {
        byte[] built = bytes;
        if (built == null && exported.getAsBoolean())
        {
            synchronized (this)
            {
                built = bytes;
                if (built == null)
                {
                    built = json.writeValueAsBytes(builder.build(services.get()));
                    bytes = built;
                }
            }
        }
        return built;
    }
}
