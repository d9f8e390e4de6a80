package io.xio.spring.autoconfigure.http;

import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.XioProperties;
import io.xio.spring.codec.FormatMappers;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.codec.JacksonXioCodec;
import io.xio.spring.http.XioHttpCalls;
import io.xio.spring.http.openapi.OpenApiDocument;
import io.xio.spring.http.openapi.OpenApiDocumentBuilder;
import io.xio.spring.reflection.XioReflectionService;
import io.xio.spring.http.webflux.XioHttpWebFlux;
import io.xio.spring.http.webmvc.XioHttpWebMvc;
import io.xio.spring.reflection.XioReflection;
import io.xio.spring.service.XioServiceExporter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configuration of HTTP/JSON access to every exported service, off unless {@code xio.http.enabled=true}: on a
 * servlet web application a Spring MVC router function, on a reactive one a WebFlux router function, serving
 * {@code POST {xio.http.prefix}/{service}/{method}}. Calls are decoded and answered with the JSON mapper the
 * reflection uses (the binary codec's configuration, writing JSON), and run as the services' xio calls do. The
 * OpenAPI document of the routes is served at {@code GET {xio.http.prefix}/openapi.json} unless
 * {@code xio.http.openapi.enabled=false}.
 */
@AutoConfiguration(after = XioAutoConfiguration.class)
@ConditionalOnBean(XioServiceExporter.class)
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "xio.http.enabled")
@ConditionalOnWebApplication
public final class XioHttpAutoConfiguration
{
    @Bean
    @ConditionalOnMissingBean
    XioHttpCalls xioHttpCalls(final ObjectProvider<XioServiceExporter> exporter, final ObjectProvider<XioCodec> codec,
        final ObjectProvider<JsonMapper> jsonMapper, final XioProperties properties)
    {
        final XioProperties.Http http = properties.getHttp();
        // The exporter is asked at each call: the services it exports now, none before it starts or after it stops.
        // Of xio's own services only the reflection (exported only while xio.server.reflection.enabled) is offered:
        // the others (health, say) answer xio clients and operators, not web callers.
        return new XioHttpCalls(() -> exporter.getObject().services().stream()
                .filter(service -> !XioReflectionService.isReserved(service.resource())
                    || service.resource().equals(XioReflection.RESOURCE))
                .toList(),
            FormatMappers.json(codec.getIfAvailable(), () -> jsonMapper.getIfAvailable(JsonMapper::new)),
            new XioHttpCalls.Settings(http.getMetadataHeaders(), http.getMaxRequestSize().toBytes()));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "xio.http.openapi.enabled", matchIfMissing = true)
    OpenApiDocument xioOpenApiDocument(final ObjectProvider<XioServiceExporter> exporter,
        final ObjectProvider<XioCodec> codec, final ObjectProvider<JsonMapper> jsonMapper,
        final XioProperties properties, final XioHttpCalls calls, final Environment environment)
    {
        final ObjectMapper json = FormatMappers.json(codec.getIfAvailable(),
            () -> jsonMapper.getIfAvailable(JsonMapper::new));
        // A reflection of its own (not exported): the document is served even when reflection is off for callers.
        final XioReflectionService reflection = new XioReflectionService(() -> exporter.getObject().services(),
            new JacksonXioCodec(json));
        final OpenApiDocumentBuilder builder = new OpenApiDocumentBuilder().prefix(properties.getHttp().getPrefix())
            .title(environment.getProperty("spring.application.name", "xio services"));
        return new OpenApiDocument(reflection::descriptions, () -> exporter.getObject().isRunning(), builder, json,
            calls);
    }

    /** The route on Spring MVC. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(org.springframework.web.servlet.function.RouterFunction.class)
    static final class WebMvc
    {
        @Bean
        org.springframework.web.servlet.function.RouterFunction<org.springframework.web.servlet.function.ServerResponse>
            xioHttpRoutes(final XioHttpCalls calls, final XioProperties properties)
        {
            return XioHttpWebMvc.routes(properties.getHttp().getPrefix(), calls);
        }

        @Bean
        @ConditionalOnBooleanProperty(name = "xio.http.openapi.enabled", matchIfMissing = true)
        org.springframework.web.servlet.function.RouterFunction<org.springframework.web.servlet.function.ServerResponse>
            xioOpenApiRoute(final OpenApiDocument document, final XioProperties properties)
        {
            return XioHttpWebMvc.get(properties.getHttp().getPrefix(), OpenApiDocument.PATH, document::answer);
        }
    }

    /** The route on WebFlux. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(org.springframework.web.reactive.function.server.RouterFunction.class)
    static final class WebFlux
    {
        @Bean
        org.springframework.web.reactive.function.server.RouterFunction<
            org.springframework.web.reactive.function.server.ServerResponse> xioHttpRoutes(final XioHttpCalls calls,
            final XioProperties properties)
        {
            return XioHttpWebFlux.routes(properties.getHttp().getPrefix(), calls);
        }

        @Bean
        @ConditionalOnBooleanProperty(name = "xio.http.openapi.enabled", matchIfMissing = true)
        org.springframework.web.reactive.function.server.RouterFunction<
            org.springframework.web.reactive.function.server.ServerResponse> xioOpenApiRoute(
            final OpenApiDocument document, final XioProperties properties)
        {
            return XioHttpWebFlux.get(properties.getHttp().getPrefix(), OpenApiDocument.PATH, document::answer);
        }
    }
}
