package io.xio.spring.client;

import io.xio.cluster.EndpointResolver;
import io.xio.cluster.ServiceClient;
import io.xio.engine.SessionOptions;
import io.xio.engine.XioEngine;
import io.xio.engine.support.Backoff;
import io.xio.spring.call.XioClientInterceptor;
import io.xio.spring.codec.XioCodec;
import io.xio.spring.observation.XioInstrumentation;
import org.springframework.beans.factory.BeanFactory;

import java.lang.reflect.Proxy;

/**
 * Makes client proxies of the xio beans of a bean factory: its {@link XioEngine} and {@link XioCodec}, and, when
 * present, its {@link XioInstrumentation}, {@link XioClientInterceptor}s, {@link XioCredentialsProvider}s,
 * {@link XioClientRegistry} and, for a client that names a service, {@link EndpointResolver}. Each proxy calls as
 * its {@link XioClientSettings} say. Called on the thread that creates the client bean; the proxies are
 * thread-safe.
 */
public final class XioClientProxies
{
    private XioClientProxies()
    {
    }

    /**
     * A proxy of {@code api} that calls as {@code settings} say, made of {@code beans}' xio beans; registered with
     * the {@link XioClientRegistry} when there is one.
     *
     * @throws IllegalArgumentException when a method's {@code @XioMethod} settings cannot apply
     * @throws IllegalStateException when the client names a service and there is no {@link EndpointResolver}
     */
    public static <T> T create(final Class<T> api, final XioClientSettings settings, final BeanFactory beans)
    {
        final String label = settings.label();
        final SessionOptions options = SessionOptions.DEFAULT.withTimeout(settings.timeout())
            .withConnections(settings.connections())
            .withCredentials(CredentialsSource.of(label, settings.credentials(),
                () -> beans.getBeanProvider(XioCredentialsProvider.class).orderedStream().toList()))
            .withTls(settings.tls());
        final XioEngine engine = beans.getBean(XioEngine.class);
        final XioClientSettings.Service service = settings.service();
        final ClientSessions sessions = service != null ? serviceSessions(engine, service, options, beans)
            : new UriSessions(engine, settings.uri(), options);
        final XioClientSettings.Retry retry = settings.retry();
        final XioClientInvocationHandler handler;
        try
        {
            handler = new XioClientInvocationHandler(api, settings.name(), sessions, engine,
                beans.getBean(XioCodec.class), options,
                beans.getBeanProvider(XioInstrumentation.class).getIfAvailable(() -> XioInstrumentation.NONE),
                new AllowedExceptions(settings.allowedExceptions()),
                new RetryPolicy(retry.maxAttempts(), Backoff.of(retry.initialBackoff(), retry.maxBackoff())),
                () -> beans.getBeanProvider(XioClientInterceptor.class).orderedStream().toList());
        }
        catch (final RuntimeException | Error ex)
        {
            sessions.close(); // no proxy owns them: a service client's watch and thread would outlive the failure
            throw ex;
        }
        beans.getBeanProvider(XioClientRegistry.class).ifAvailable(registry -> registry.add(handler));
        return api.cast(Proxy.newProxyInstance(api.getClassLoader(), new Class<?>[] {api}, handler));
    }

    /**
     * The sessions of a client that names a service: a {@link ServiceClient} over the instances the resolver its
     * settings give (the context's shared DNS resolver) or the application's {@link EndpointResolver} (the Spring
     * Cloud {@code DiscoveryClient} bridge) reports; the client closes neither.
     */
    private static ClientSessions serviceSessions(final XioEngine engine, final XioClientSettings.Service service,
        final SessionOptions options, final BeanFactory beans)
    {
        final EndpointResolver given = service.resolver();
        final EndpointResolver resolver = given != null ? given
            : beans.getBeanProvider(EndpointResolver.class).getIfAvailable();
        if (resolver == null)
        {
            throw new IllegalStateException("a client of the service " + service.serviceId() + " needs an " +
                "EndpointResolver bean (Spring Cloud's DiscoveryClient bridges to one); there is none");
        }
        final ServiceClient client = ServiceClient.builder(engine, resolver, service.serviceId())
            .resource(service.resource())
            .balancer(service.balancer())
            .transports(service.transports())
            .sessionOptions(options)
            .build();
        return new ServiceSessions(client, service.serviceId(), given != null);
    }
}
