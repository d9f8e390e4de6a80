package io.xio.spring.autoconfigure;

import io.xio.spring.autoconfigure.client.XioClientConfigurationException;
import io.xio.spring.autoconfigure.client.XioClientConnectionDetails;
import io.xio.spring.autoconfigure.client.XioClientFactoryBean;
import io.xio.spring.client.XioClientRegistry;
import io.xio.spring.autoconfigure.diagnostics.XioClientConfigurationFailureAnalyzerAccess;
import io.xio.spring.autoconfigure.sample.acronym.XmlServiceClient;
import io.xio.spring.autoconfigure.sample.badname.BadNameClient;
import io.xio.spring.autoconfigure.sample.nameless.NamelessApplication;
import io.xio.spring.autoconfigure.sample.orders.api.OrderServiceClient;
import io.xio.spring.autoconfigure.sample.orders.app.OrdersClientApplication;
import io.xio.spring.autoconfigure.sample.orders.app.UnimportedClientApplication;
import io.xio.spring.autoconfigure.sample.orders.server.OrdersServerApplication;
import io.xio.spring.autoconfigure.sample.profiled.ProfiledClient;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Client beans: settings bound at run time under the client name's canonical form (acronyms and bracketed keys
 * included), addresses from {@link XioClientConnectionDetails} beans, interfaces imported from outside the
 * application's packages (left out by {@code xio.enabled=false} and outside their {@code @Profile}), one
 * post-processed object per client, and the failure analysis of a client without an address, lazy initialization or
 * not.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioClientBindingTest
{
    /** Runs {@code test} with the orders service listening on a tcp port of its own. */
    private static void withOrdersServer(final Consumer<String> test)
    {
        runner(OrdersServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0").run(server ->
            test.accept(ordersUri(server)));
    }

    private static String ordersUri(final ApplicationContext server)
    {
        return server.getBean(XioServiceExporter.class).portals().get(0).uri().withResource("orders").toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"xio.clients.order-service.uri", "xio.clients.orderService.uri",
        "xio.clients.orderservice.uri"})
    void aCamelCaseClientNameReadsItsSettingsUnderAnyRelaxedFormOfIt(final String property)
    {
        withOrdersServer(uri -> runner(OrdersClientApplication.class).withPropertyValues(property + "=" + uri)
            .run(client ->
            {
                assertThat(client).hasNotFailed();
                assertThat(client.getBean(OrderServiceClient.class).place("book")).isEqualTo("placed book");
                // Asked for by type and made eagerly, the client is still one proxy with one session.
                assertThat(client.getBean(XioClientRegistry.class).statuses()).hasSize(1);
            }));
    }

    @ParameterizedTest
    @ValueSource(strings = {"XIO_CLIENTS_ORDER_SERVICE_URI", "XIO_CLIENTS_ORDERSERVICE_URI"})
    void anEnvironmentVariableSetsTheClientsAddress(final String variable)
    {
        withOrdersServer(uri -> runner(OrdersClientApplication.class)
            .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                    Map.of(variable, uri))))
            .run(client -> assertThat(client.getBean(OrderServiceClient.class).place("pen")).isEqualTo("placed pen")));
    }

    @Test
    void aClientWithoutAnAddressFailsStartUpNamingTheCanonicalProperty()
    {
        runner(OrdersClientApplication.class).run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(find(context.getStartupFailure()))
                .hasMessageContaining("@XioClient(\"orderService\")")
                .hasMessageContaining("xio.clients.order-service.uri");
            final FailureAnalysis analysis = new XioClientConfigurationFailureAnalyzerAccess()
                .analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains(OrderServiceClient.class.getName())
                .contains("xio.clients.order-service.uri").doesNotContain("orderService.uri");
            assertThat(analysis.getAction()).contains("Set xio.clients.order-service.uri")
                .contains("xio.clients.order-service.service-id").doesNotContain("orderService.uri");
        });
    }

    @Test
    void aClientWithAUriAndAServiceIdFailsStartUpNamingBoth()
    {
        runner(OrdersClientApplication.class).withPropertyValues("xio.clients.orderService.uri=tcp://127.0.0.1:1/o",
            "xio.clients.order-service.service-id=orders").run(context ->
            {
                assertThat(context).hasFailed();
                final FailureAnalysis analysis = new XioClientConfigurationFailureAnalyzerAccess()
                    .analyze(context.getStartupFailure());
                assertThat(analysis.getDescription()).contains("xio.clients.order-service.uri")
                    .contains("xio.clients.order-service.service-id");
                assertThat(analysis.getAction())
                    .isEqualTo("Keep either xio.clients.order-service.uri or xio.clients.order-service.service-id.");
            });
    }

    @Test
    void aClientAnnotationWithoutANameOrAUriIsExplainedWithoutAnEmptyPropertyName()
    {
        runner(NamelessApplication.class).run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(find(context.getStartupFailure())).hasMessageContaining("names neither a client nor a uri");
            final FailureAnalysis analysis = new XioClientConfigurationFailureAnalyzerAccess()
                .analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("NamelessClient").doesNotContain("xio.clients..");
            assertThat(analysis.getAction()).contains("@XioClient(\"orders\")").contains("@XioClient(uri = ")
                .doesNotContain("xio.clients..");
        });
    }

    @Test
    void aConnectionDetailsBeanGivesTheAddressAndWinsOverTheProperty()
    {
        withOrdersServer(uri -> runner(OrdersClientApplication.class)
            .withPropertyValues("xio.clients.order-service.uri=tcp://127.0.0.1:1/nowhere")
            .withBean(XioClientConnectionDetails.class, () -> name ->
                "orderService".equals(name) ? XioClientConnectionDetails.Address.uri(uri) : null)
            .run(client -> assertThat(client.getBean(OrderServiceClient.class).place("cup")).isEqualTo("placed cup")));
    }

    @Test
    void aConnectionDetailsBeanThatDoesNotKnowTheClientLeavesItToItsProperties()
    {
        withOrdersServer(uri -> runner(OrdersClientApplication.class)
            .withPropertyValues("xio.clients.order-service.uri=" + uri)
            .withBean(XioClientConnectionDetails.class, () -> name -> null)
            .run(client -> assertThat(client.getBean(OrderServiceClient.class).place("mug")).isEqualTo("placed mug")));
    }

    @Test
    void importXioClientsRegistersClientsOutsideTheApplicationsPackages()
    {
        withOrdersServer(uri ->
        {
            runner(UnimportedClientApplication.class).run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(OrderServiceClient.class));
            for (final Class<?> application : new Class<?>[] {OrdersClientApplication.class, ByName.class,
                ByPackageName.class})
            {
                runner(application).withPropertyValues("xio.clients.order-service.uri=" + uri).run(context ->
                {
                    assertThat(context).hasNotFailed().hasSingleBean(OrderServiceClient.class);
                    assertThat(context.getBean(OrderServiceClient.class).place("map")).isEqualTo("placed map");
                });
            }
        });
    }

    @Test
    void aClientImportedTwiceOrDeclaredByTheApplicationIsOneBean()
    {
        withOrdersServer(uri ->
        {
            for (final Class<?> application : new Class<?>[] {Twice.class, Own.class})
            {
                runner(application).withPropertyValues("xio.clients.order-service.uri=" + uri).run(context ->
                {
                    assertThat(context).hasNotFailed().hasSingleBean(OrderServiceClient.class);
                    assertThat(context.getBean(OrderServiceClient.class).place("hat")).isEqualTo("placed hat");
                });
            }
            runner(Own.class).withPropertyValues("xio.clients.order-service.uri=" + uri).run(context ->
                assertThat(context).hasBean("ownOrders").doesNotHaveBean("orderServiceClient"));
        });
    }

    @Test
    void aClientInTheApplicationsPackagesThatIsAlsoImportedIsOneBean()
    {
        withOrdersServer(uri -> runner(ScannedAndImported.class)
            .withPropertyValues("xio.clients.order-service.uri=" + uri).run(context ->
            {
                assertThat(context).hasNotFailed().hasSingleBean(OrderServiceClient.class);
                assertThat(context.getBeanNamesForType(OrderServiceClient.class)).containsExactly("orderServiceClient");
                assertThat(context.getBean(OrderServiceClient.class).place("cup")).isEqualTo("placed cup");
            }));
    }

    @Test
    void aClientNameThatIsNoPropertyNameFailsStartUpNamingTheInterface()
    {
        runner(BadName.class).run(context ->
        {
            assertThat(context).hasFailed();
            // Thrown while the bean definitions are loaded, before any bean is created.
            assertThat(context.getStartupFailure()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@XioClient(\"orders_v2\") on " + BadNameClient.class.getName())
                .hasMessageContaining("xio.clients.orders_v2");
        });
    }

    /** The settings are bound twice (XioProperties.clients for validation and metadata, the client by its name). */
    @ParameterizedTest
    @ValueSource(strings = {"xio.clients.order-service.timeout", "xio.clients.orderService.timeout"})
    void aBadClientValueFailsStartUpNamingThePropertyOnce(final String property)
    {
        runner(OrdersClientApplication.class)
            .withPropertyValues("xio.clients.order-service.uri=tcp://127.0.0.1:1/orders", property + "=abc")
            .run(context ->
            {
                assertThat(context).hasFailed();
                final List<BindException> binds = new ArrayList<>();
                for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause())
                {
                    if (t instanceof BindException bind)
                    {
                        binds.add(bind);
                    }
                }
                assertThat(binds).singleElement().satisfies(bind -> assertThat(bind.getProperty().getName())
                    .isEqualTo(ConfigurationPropertyName.of("xio.clients.order-service.timeout")));
            });
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

    /** Imports the client interface by its class. */
    @Configuration(proxyBeanMethods = false)
    @ImportXioClients(clients = OrderServiceClient.class)
    static class ByName
    {
    }

    /** Imports the client interfaces of a package named as text. */
    @Configuration(proxyBeanMethods = false)
    @ImportXioClients("io.xio.spring.autoconfigure.sample.orders.api")
    static class ByPackageName
    {
    }

    /** Scans the API package as an application package and imports its interfaces as well. */
    @Configuration(proxyBeanMethods = false)
    @org.springframework.boot.autoconfigure.AutoConfigurationPackage(basePackageClasses = OrderServiceClient.class)
    @ImportXioClients(clients = OrderServiceClient.class, basePackageClasses = OrderServiceClient.class)
    static class ScannedAndImported
    {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportXioClients(clients = BadNameClient.class)
    static class BadName
    {
    }

    /** Imports one interface three ways. */
    @Configuration(proxyBeanMethods = false)
    @ImportXioClients(clients = OrderServiceClient.class, basePackageClasses = OrderServiceClient.class)
    @org.springframework.context.annotation.Import(OrdersClientApplication.class)
    static class Twice
    {
    }

    /** Makes the client itself, with the public factory, under a name of its own: the import backs off. */
    @Configuration(proxyBeanMethods = false)
    @ImportXioClients(clients = OrderServiceClient.class)
    static class Own
    {
        @Bean
        OrderServiceClient ownOrders(final BeanFactory beans)
        {
            return XioClientFactoryBean.create(OrderServiceClient.class, "orderService", null, beans);
        }
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

    private static XioClientConfigurationException find(final Throwable failure)
    {
        for (Throwable t = failure; t != null; t = t.getCause())
        {
            if (t instanceof XioClientConfigurationException found)
            {
                return found;
            }
        }
        throw new AssertionError("no XioClientConfigurationException in " + failure);
    }
}
