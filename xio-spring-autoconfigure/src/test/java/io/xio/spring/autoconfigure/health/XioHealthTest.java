package io.xio.spring.autoconfigure.health;

import io.xio.annotation.XioClient;
import io.xio.engine.ConnectionException;
import io.xio.engine.Credentials;
import io.xio.engine.Message;
import io.xio.engine.Metadata;
import io.xio.engine.Outbound;
import io.xio.engine.Session;
import io.xio.engine.SessionOptions;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.ImportXioClients;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.reflection.XioReflectionAutoConfiguration;
import io.xio.spring.autoconfigure.sample.slow.client.SlowClient;
import io.xio.spring.autoconfigure.sample.slow.client.SlowClientApplication;
import io.xio.spring.autoconfigure.sample.slow.server.SlowService;
import io.xio.spring.autoconfigure.security.XioSecurityAutoConfiguration;
import io.xio.spring.health.XioHealth;
import io.xio.spring.health.XioHealth.HealthCheck;
import io.xio.spring.health.XioHealth.ServingStatus;
import io.xio.spring.method.Invocation;
import io.xio.spring.reflection.XioReflection;
import io.xio.spring.service.ServiceDispatcher;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The {@code xio.health} resource of a Spring Boot server without the actuator, asked as probes ask: by an
 * {@code @XioClient} of {@link XioHealth} and by a generic client in JSON; serving, unknown services, readiness,
 * a drain with a call in flight, a stopped server; turned off; and behind the portals' authentication.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class XioHealthTest
{
    private static final JsonMapper JSON = new JsonMapper();

    private final List<ConfigurableApplicationContext> started = new ArrayList<>();

    /** The slow service's server, with everything Boot auto-configures but a web server. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @AutoConfigurationPackage(basePackageClasses = SlowService.class)
    static class ServerApp
    {
    }

    /** A probe's view of the server: the health interface as a client, configured under xio.clients.health. */
    @XioClient("health")
    interface HealthClient extends XioHealth
    {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportXioClients(clients = HealthClient.class)
    static class HealthClientApp
    {
    }

    private ConfigurableApplicationContext start(final String... properties)
    {
        final List<String> args = new ArrayList<>(List.of("--spring.main.banner-mode=off", "--xio.contexts=1",
            "--xio.idle.busy-poll=0s", "--xio.portals[0].uri=tcp://127.0.0.1:0"));
        for (final String property : properties)
        {
            args.add("--" + property);
        }
        final ConfigurableApplicationContext server = new SpringApplicationBuilder(ServerApp.class)
            .web(WebApplicationType.NONE).run(args.toArray(String[]::new));
        started.add(server);
        return server;
    }

    @AfterEach
    void stop()
    {
        for (final ConfigurableApplicationContext server : started)
        {
            if (server.isActive())
            {
                server.getBean(SlowService.class).release();
                server.close();
            }
        }
    }

    private static String portal(final ConfigurableApplicationContext server)
    {
        return "tcp://127.0.0.1:" + server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
    }

    private static ApplicationContextRunner client(final Class<?> application, final String... properties)
    {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class))
            .withUserConfiguration(application)
            .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s")
            .withPropertyValues(properties);
    }

    @Test
    void aServingServerAndItsServicesAreServingAndANameItDoesNotExportIsUnknown() throws Exception
    {
        final ConfigurableApplicationContext server = start();
        client(HealthClientApp.class, "xio.clients.health.uri=" + portal(server) + "/" + XioHealth.RESOURCE)
            .run(client ->
            {
                final XioHealth health = client.getBean(HealthClient.class);
                assertThat(health.check(XioHealth.SERVER)).isEqualTo(HealthCheck.SERVING);
                assertThat(health.check("slow")).isEqualTo(HealthCheck.SERVING);
                assertThat(health.check("nowhere").status()).isEqualTo(ServingStatus.SERVICE_UNKNOWN);
                // xio's own resources are not the application's services, as reflection does not list them.
                assertThat(health.check(XioReflection.RESOURCE).status()).isEqualTo(ServingStatus.SERVICE_UNKNOWN);
                assertThat(health.check(XioHealth.RESOURCE).status()).isEqualTo(ServingStatus.SERVICE_UNKNOWN);
            });
        // A client in another language: JSON in, JSON out, whatever the server's codec.
        final JsonNode answer = callInJson(server, XioHealth.RESOURCE, "check(String)", "[\"slow\"]");
        assertThat(answer.get("status").asString()).isEqualTo("SERVING");
        assertThat(callInJson(server, XioHealth.RESOURCE, "check(String)", "[\"nowhere\"]").get("status").asString())
            .isEqualTo("SERVICE_UNKNOWN");
        // Reflection lists the application's services only, as it leaves itself out.
        final JsonNode listed = callInJson(server, XioReflection.RESOURCE, "list()", "[]");
        assertThat(listed.findValuesAsString("name")).containsExactly("slow");
    }

    @Test
    void anApplicationRefusingTrafficIsNotServingUntilItAcceptsItAgain() throws Exception
    {
        final ConfigurableApplicationContext server = start();
        AvailabilityChangeEvent.publish(server, ReadinessState.REFUSING_TRAFFIC);
        JsonNode answer = callInJson(server, XioHealth.RESOURCE, "check(String)", "[\"\"]");
        assertThat(answer.get("status").asString()).isEqualTo("NOT_SERVING");
        assertThat(answer.get("detail").asString()).isEqualTo("readiness REFUSING_TRAFFIC");
        assertThat(callInJson(server, XioHealth.RESOURCE, "check(String)", "[\"slow\"]").get("status").asString())
            .isEqualTo("NOT_SERVING");

        AvailabilityChangeEvent.publish(server, ReadinessState.ACCEPTING_TRAFFIC);
        answer = callInJson(server, XioHealth.RESOURCE, "check(String)", "[\"\"]");
        assertThat(answer.get("status").asString()).isEqualTo("SERVING");
    }

    @Test
    void whileTheServerDrainsACallInFlightHealthSaysNotServingAndOnceStoppedTheServerIsUnreachable()
        throws Exception
    {
        final ConfigurableApplicationContext server = start("xio.shutdown.grace-period=30s",
            "spring.lifecycle.timeout-per-shutdown-phase=40s");
        final XioServiceExporter exporter = server.getBean(XioServiceExporter.class);
        final String portal = portal(server);
        client(SlowClientApplication.class, "xio.clients.slow.uri=" + portal + "/slow",
            "xio.clients.slow.timeout=60s").run(client ->
            {
                final CompletableFuture<String> inFlight = client.getBean(SlowClient.class).workAsync("held");
                await().atMost(Duration.ofSeconds(20)).until(() -> exporter.services().stream()
                    .anyMatch(service -> service.resource().equals("slow") && service.running() == 1));
                final CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
                try
                {
                    await().atMost(Duration.ofSeconds(20)).until(exporter::isDraining);
                    // New sessions to the health resource are still taken, and say the server drains.
                    JsonNode answer = callInJson(server, XioHealth.RESOURCE, "check(String)", "[\"\"]");
                    assertThat(answer.get("status").asString()).isEqualTo("NOT_SERVING");
                    assertThat(answer.get("detail").asString()).contains("draining");
                    answer = callInJson(server, XioHealth.RESOURCE, "check(String)", "[\"slow\"]");
                    assertThat(answer.get("status").asString()).isEqualTo("NOT_SERVING");
                    assertThatThrownBy(() -> callInJson(server, "slow", "work(String)", "[\"late\"]"))
                        .isInstanceOfSatisfying(SessionRejectedException.class,
                            refused -> assertThat(refused.isDraining()).isTrue());
                    assertThat(inFlight).isNotDone();
                    assertThat(closing).isNotDone();
                }
                finally
                {
                    server.getBean(SlowService.class).release();
                }
                assertThat(inFlight.get(20, TimeUnit.SECONDS)).isEqualTo("done held");
                closing.get(20, TimeUnit.SECONDS);
            });
        assertThatThrownBy(() -> callInJson(portal, XioHealth.RESOURCE, "check(String)", "[\"\"]", Credentials.NONE))
            .isInstanceOf(ConnectionException.class);
    }

    @Test
    void turnedOffTheServerHasNoHealthResource()
    {
        final ConfigurableApplicationContext server = start("xio.server.health.enabled=false");
        assertThat(server.getBeanProvider(io.xio.spring.health.XioHealthService.class).getIfAvailable()).isNull();
        assertThatThrownBy(() -> callInJson(server, XioHealth.RESOURCE, "check(String)", "[\"\"]"))
            .isInstanceOf(SessionRejectedException.class);
    }

    @Test
    void withReflectionOffHealthStillAnswersInJson() throws Exception
    {
        final ConfigurableApplicationContext server = start("xio.server.reflection.enabled=false");
        assertThat(callInJson(server, XioHealth.RESOURCE, "check(String)", "[\"\"]").get("status").asString())
            .isEqualTo("SERVING");
        // The other services take no JSON without reflection, as before.
        assertThatThrownBy(() -> callInJson(server, "slow", "work(String)", "[\"json\"]"))
            .hasMessageContaining("arguments could not be decoded");
    }

    /** Portals that authenticate: a server with a user, without the servlet stack. */
    @Configuration(proxyBeanMethods = false)
    static class Users
    {
        @Bean
        UserDetailsService users()
        {
            return new InMemoryUserDetailsManager(User.withUsername("ops").password("{noop}ops-secret").roles("ops")
                .build());
        }
    }

    private static ApplicationContextRunner secured(final String... properties)
    {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
                XioSecurityAutoConfiguration.class, XioReflectionAutoConfiguration.class,
                XioHealthAutoConfiguration.class))
            .withUserConfiguration(Users.class)
            .withBean(SlowService.class)
            .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s", "xio.portals[0].uri=tcp://127.0.0.1:0")
            .withPropertyValues(properties);
    }

    @Test
    void byDefaultAHealthCheckAuthenticatesLikeEveryOtherSession()
    {
        secured().run(server ->
        {
            final String portal = portal(server);
            assertThatThrownBy(() -> callInJson(portal, XioHealth.RESOURCE, "check(String)", "[\"\"]",
                Credentials.NONE)).isInstanceOfSatisfying(SessionRejectedException.class,
                    refused -> assertThat(refused.isAuthenticationFailure()).isTrue());
            // No availability events without SpringApplication: the server's own state and the credentials decide.
            assertThat(callInJson(portal, XioHealth.RESOURCE, "check(String)", "[\"\"]",
                Credentials.password("ops", "ops-secret")).get("status").asString()).isEqualTo("SERVING");
        });
    }

    @Test
    void allowedUnauthenticatedAProbeWithoutCredentialsReachesHealthAndNothingElse()
    {
        secured("xio.server.health.allow-unauthenticated=true").run(server ->
        {
            final String portal = portal(server);
            assertThat(callInJson(portal, XioHealth.RESOURCE, "check(String)", "[\"slow\"]", Credentials.NONE)
                .get("status").asString()).isEqualTo("SERVING");
            for (final String resource : new String[] {"slow", XioReflection.RESOURCE})
            {
                assertThatThrownBy(() -> callInJson(portal, resource, "list()", "[]", Credentials.NONE))
                    .as(resource).isInstanceOfSatisfying(SessionRejectedException.class,
                        refused -> assertThat(refused.isAuthenticationFailure()).isTrue());
            }
        });
    }

    @Test
    void anonymousHealthSessionsAreBoundedAsAGroupWhileAuthenticatedClientsStillConnect()
    {
        secured("xio.server.health.allow-unauthenticated=true", "xio.server.health.max-unauthenticated-sessions=3")
            .run(server ->
            {
                final String health = portal(server) + "/" + XioHealth.RESOURCE;
                final Credentials ops = Credentials.password("ops", "ops-secret");
                // The attack: one host opening anonymous health sessions and keeping them, to take every slot.
                try (XioEngine attacker = XioEngine.builder().name("attacker").contexts(1).build();
                    XioEngine client = XioEngine.builder().name("client").contexts(1).build())
                {
                    final List<Session> held = new ArrayList<>();
                    for (int i = 0; i < 3; i++)
                    {
                        held.add(open(attacker, health, Credentials.NONE));
                    }
                    assertThatThrownBy(() -> open(attacker, health, Credentials.NONE))
                        .isInstanceOfSatisfying(SessionRejectedException.class, refused ->
                        {
                            assertThat(refused.isDraining()).isFalse();
                            assertThat(refused).hasMessageContaining("too many health checks without credentials");
                        });
                    // Clients with credentials still get in, to the services and to health.
                    open(client, portal(server) + "/slow", ops).close();
                    open(client, health, ops).close();
                    // A slot freed is taken again.
                    held.remove(0).close();
                    await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                        .until(() -> held.add(open(attacker, health, Credentials.NONE)));
                    held.forEach(Session::close);
                }
            });
    }

    @Test
    void aRedirectingFirstPortalNeverRedirectsAHealthCheck()
    {
        secured("xio.server.health.allow-unauthenticated=true", "xio.portals[1].uri=tcp://127.0.0.1:0",
            "xio.server.redirect=round-robin").run(server ->
            {
                final List<io.xio.engine.Portal> portals = server.getBean(XioServiceExporter.class).portals();
                final String first = "tcp://127.0.0.1:" + portals.get(0).uri().port();
                try (XioEngine client = XioEngine.builder().name("probe").contexts(1).build())
                {
                    // An authenticated session is redirected, to the second portal (round-robin's first target
                    // is the first portal; the second set-up goes to the second).
                    final Credentials ops = Credentials.password("ops", "ops-secret");
                    final List<String> reached = new ArrayList<>();
                    for (int i = 0; i < 2; i++)
                    {
                        try (Session slow = open(client, first + "/slow", ops))
                        {
                            reached.addAll(slow.peerAddresses());
                        }
                    }
                    assertThat(reached).anyMatch(address -> address.endsWith(":" + portals.get(1).uri().port()));
                    for (int i = 0; i < 4; i++)
                    {
                        for (final Credentials credentials : List.of(Credentials.NONE, ops))
                        {
                            try (Session health = open(client, first + "/" + XioHealth.RESOURCE, credentials))
                            {
                                assertThat(health.peerAddresses()).isNotEmpty()
                                    .allMatch(address -> address.endsWith(":" + portals.get(0).uri().port()));
                            }
                        }
                    }
                }
            });
    }

    @Test
    void aHealthSessionHeldOpenAcrossTheStopIsClosed() throws Exception
    {
        final ConfigurableApplicationContext server = start();
        final XioServiceExporter exporter = server.getBean(XioServiceExporter.class);
        final XioEngine serverEngine = server.getBean(XioEngine.class);
        try (XioEngine client = XioEngine.builder().name("probe").contexts(1).build())
        {
            final Session health = open(client, portal(server) + "/" + XioHealth.RESOURCE, Credentials.NONE);
            assertThat(serverSessions(serverEngine)).isEqualTo(1);
            // The exporter stops (the engine, a bean of its own, stays up): the drain does not wait for the
            // health session, and the stop closes it rather than leaving it open.
            final CompletableFuture<Void> stopped = new CompletableFuture<>();
            exporter.stop(() -> stopped.complete(null));
            stopped.get(20, TimeUnit.SECONDS);
            assertThat(exporter.drain().get(5, TimeUnit.SECONDS).sessions()).isZero();
            await().atMost(Duration.ofSeconds(10)).until(() -> serverSessions(serverEngine) == 0);
            await().atMost(Duration.ofSeconds(10)).until(() -> !health.isOpen());
        }
    }

    /** The server-side sessions of {@code engine}. */
    private static long serverSessions(final XioEngine engine)
    {
        return engine.sessions().stream().filter(Session::isServerSide).count();
    }

    /** Opens a session to {@code uri}; throws what opening it failed with. */
    private static Session open(final XioEngine engine, final String uri, final Credentials credentials)
        throws Exception
    {
        try
        {
            return engine.openSession(uri, SessionOptions.DEFAULT.withCredentials(credentials)
                .withTimeout(Duration.ofSeconds(5))).get(10, TimeUnit.SECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw (Exception)ex.getCause();
        }
    }

    private static JsonNode callInJson(final ConfigurableApplicationContext server, final String resource,
        final String method, final String arguments) throws Exception
    {
        return callInJson(portal(server), resource, method, arguments, Credentials.NONE);
    }

    /**
     * Calls {@code method} of {@code resource} as a client without the services' classes: a bare engine session, its
     * arguments and answer JSON; throws what opening the session or the call failed with.
     */
    private static JsonNode callInJson(final String portal, final String resource, final String method,
        final String arguments, final Credentials credentials) throws Exception
    {
        try (XioEngine engine = XioEngine.builder().name("probe").contexts(1).build())
        {
            final Session session;
            try
            {
                session = engine.openSession(portal + "/" + resource, SessionOptions.DEFAULT
                    .withCredentials(credentials).withTimeout(Duration.ofSeconds(5))).get(10, TimeUnit.SECONDS);
            }
            catch (final ExecutionException ex)
            {
                throw (Exception)ex.getCause();
            }
            try (session)
            {
                final Outbound request = Outbound.of(Invocation.header(method,
                    arguments.getBytes(StandardCharsets.UTF_8)))
                    .metadata(new Metadata().add(ServiceDispatcher.CODEC_KEY, ServiceDispatcher.JSON));
                try (Message answer = session.request(request).get(10, TimeUnit.SECONDS))
                {
                    return JSON.readTree(answer.headerBytes());
                }
                catch (final ExecutionException ex)
                {
                    throw (Exception)ex.getCause();
                }
            }
        }
    }
}
