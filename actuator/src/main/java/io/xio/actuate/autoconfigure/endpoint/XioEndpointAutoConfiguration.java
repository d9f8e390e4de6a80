package io.xio.actuate.autoconfigure.endpoint;

import io.xio.actuate.endpoint.XioEndpoint;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.client.XioClientRegistry;
import io.xio.spring.service.XioServiceExporter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import java.util.regex.Pattern;

/**
 * The {@code xio} actuator endpoint, when Spring Boot Actuator is present and the endpoint is exposed; and the
 * masking of xio's client credentials in the {@code configprops} and {@code env} endpoints, even where they are
 * set to show values.
 */
@AutoConfiguration(after = XioAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "xio.enabled", matchIfMissing = true)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(XioEngine.class)
public final class XioEndpointAutoConfiguration
{
    /** The keys of client credentials, in {@link #canonical} form. */
    private static final Pattern CREDENTIALS = Pattern.compile("xio\\.clients?\\.(.+\\.)?credentials\\..+");
    /** What separates a key's elements in any of the spellings Boot binds: dots, brackets, underscores. */
    private static final Pattern SEPARATORS = Pattern.compile("[._\\[\\]\"']+");

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    XioEndpoint xioEndpoint(final XioEngine engine, final ObjectProvider<XioServiceExporter> exporter,
        final ObjectProvider<XioClientRegistry> clients)
    {
        return new XioEndpoint(engine, exporter.getIfAvailable(), clients.getIfAvailable());
    }

    /**
     * Masks {@code xio.client.credentials.*} and {@code xio.clients.<name>.credentials.*}, however spelled (an
     * environment variable, the bracket form): Boot shows no values by
     * default, but an application that shows them ({@code show-values: always}) still never shows these secrets,
     * whatever their key ends with.
     */
    @Bean
    SanitizingFunction xioCredentialsSanitizingFunction()
    {
        return data -> CREDENTIALS.matcher(canonical(data.getLowerCaseKey())).matches()
            ? data.withSanitizedValue() : data;
    }

    /**
     * A key as Boot binds it whatever its spelling ({@code XIO_CLIENTS_KV_CREDENTIALS_PASSWORD},
     * {@code xio.clients[kv].credentials.password}, dashed or not): its elements, lower case, without dashes,
     * joined by dots. Looser than Boot's own rules, which is the safe side for masking.
     */
    static String canonical(final String lowerCaseKey)
    {
        final String joined = SEPARATORS.matcher(lowerCaseKey.replace("-", "")).replaceAll(".");
        return joined.endsWith(".") ? joined.substring(0, joined.length() - 1) : joined;
    }
}
