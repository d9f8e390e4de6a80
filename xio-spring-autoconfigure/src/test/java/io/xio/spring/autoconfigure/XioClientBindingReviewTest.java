package io.xio.spring.autoconfigure;

import io.xio.spring.autoconfigure.client.XioClientConfigurationException;
import io.xio.spring.autoconfigure.sample.acronym.XmlServiceClient;
import io.xio.spring.autoconfigure.sample.orders.api.OrderServiceClient;
import io.xio.spring.autoconfigure.sample.orders.app.OrdersClientApplication;
import io.xio.spring.autoconfigure.sample.orders.server.OrdersServerApplication;
import io.xio.spring.autoconfigure.sample.profiled.ProfiledClient;
import io.xio.spring.autoconfigure.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;

/** Review of the binding merge (d1b8b8e): each test states behaviour the docs and Javadoc claim. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioClientBindingReviewTest
{
    private static void withOrdersServer(final Consumer<String> test)
    {
        runner(OrdersServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0").run(server ->
            test.accept(server.getBean(XioServiceExporter.class).portals().get(0).uri().withResource("orders")
                .toString()));
    }

    /** XioProperties.enabled: "false leaves out ... the clients"; an imported client must not break start-up. */
    @Test
    void xioDisabledLeavesOutImportedClientsInsteadOfFailingStartUp()
    {
        runner(OrdersClientApplication.class).withPropertyValues("xio.enabled=false",
            "xio.clients.order-service.uri=tcp://127.0.0.1:1/orders").run(context ->
            {
                assertThat(context).hasNotFailed();
                assertThat(context).doesNotHaveBean(OrderServiceClient.class);
            });
    }

    /**
     * XioClientConfigurationException: "Thrown when the client bean is created, so it fails start-up" (as the old
     * registrar's check did); with Boot's spring.main.lazy-initialization=true the client is created only when used.
     */
    @Test
    void aClientWithoutAnAddressFailsStartUpUnderGlobalLazyInitialization()
    {
        runner(OrdersClientApplication.class)
            .withBean(org.springframework.boot.LazyInitializationBeanFactoryPostProcessor.class)
            .run(context -> assertThat(context).hasFailed());
    }

    /** The scan honours @Profile on a client interface; importing it by class must too. */
    @Test
    void aProfiledClientImportedByClassIsLeftOutOutsideItsProfile()
    {
        runner(ByPackage.class).run(context -> assertThat(context).hasNotFailed()
            .doesNotHaveBean(ProfiledClient.class));
        runner(ByClass.class).run(context -> assertThat(context).hasNotFailed()
            .doesNotHaveBean(ProfiledClient.class));
    }

    /** "Each annotated interface becomes one bean": every injection of it gets the same (post-processed) object. */
    @Test
    void aClientBeanIsPostProcessedOnceAndIsOneObject()
    {
        final AtomicInteger processed = new AtomicInteger();
        withOrdersServer(uri -> runner(OrdersClientApplication.class)
            .withPropertyValues("xio.clients.order-service.uri=" + uri)
            .withBean(UserA.class).withBean(UserB.class)
            .withBean(BeanPostProcessor.class, () -> new BeanPostProcessor()
            {
                @Override
                public Object postProcessAfterInitialization(final Object bean, final String name)
                {
                    if (bean instanceof OrderServiceClient)
                    {
                        processed.incrementAndGet();
                        // What an AOP auto-proxy creator does: a wrapper per call.
                        return java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                            new Class<?>[] {OrderServiceClient.class}, (p, m, a) -> m.invoke(bean, a));
                    }
                    return bean;
                }
            })
            .run(context ->
            {
                assertThat(context).hasNotFailed();
                // Two injection points, by constructor (autowiring by type): one object, as one bean promises.
                assertThat(context.getBean(UserA.class).orders()).isSameAs(context.getBean(UserB.class).orders());
                final Object first = context.getBean(OrderServiceClient.class);
                final Object second = context.getBean(OrderServiceClient.class);
                assertThat(second).isSameAs(first);
                assertThat(processed).hasValue(1);
            }));
    }

    /** Relaxed names: the canonical form of "XMLService" is xml-service, not x-m-l-service. */
    @Test
    void anAcronymClientNameIsNamedInItsCanonicalForm()
    {
        runner(Acronym.class).run(context ->
        {
            assertThat(context).hasFailed();
            Throwable t = context.getStartupFailure();
            while (t != null && !(t instanceof XioClientConfigurationException))
            {
                t = t.getCause();
            }
            assertThat(t).isNotNull();
            assertThat(((XioClientConfigurationException)t).propertyPrefix()).isEqualTo("xio.clients.xml-service");
        });
    }

    /** The environment variable a user derives from xio.clients.xml-service.uri. */
    @Test
    void anAcronymClientNameReadsItsEnvironmentVariable()
    {
        withOrdersServer(uri -> runner(Acronym.class)
            .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                    Map.of("XIO_CLIENTS_XML_SERVICE_URI", uri))))
            .run(client -> assertThat(client.getBean(XmlServiceClient.class).place("pen")).isEqualTo("placed pen")));
    }

    /** A bracketed map key (as YAML "[orderService]" gives) that XioProperties.clients binds. */
    @Test
    void aBracketedClientKeyIsRead()
    {
        withOrdersServer(uri -> runner(OrdersClientApplication.class)
            .withPropertyValues("xio.clients[orderService].uri=" + uri)
            .run(client -> assertThat(client.getBean(OrderServiceClient.class).place("pen")).isEqualTo("placed pen")));
    }

    record UserA(OrderServiceClient orders)
    {
    }

    record UserB(OrderServiceClient orders)
    {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportXioClients(basePackageClasses = ProfiledClient.class)
    static class ByPackage
    {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportXioClients(clients = ProfiledClient.class)
    static class ByClass
    {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportXioClients(clients = XmlServiceClient.class)
    static class Acronym
    {
    }
}
