package io.xio.actuate;

import io.xio.actuate.autoconfigure.endpoint.XioEndpointAutoConfiguration;
import io.xio.actuate.endpoint.XioEndpoint;
import io.xio.actuate.sample.Greeter;
import io.xio.actuate.sample.GreeterApplications;
import io.xio.engine.InboundRequest;
import io.xio.engine.InboundStream;
import io.xio.engine.Message;
import io.xio.engine.Outbound;
import io.xio.engine.RequestCancelledException;
import io.xio.engine.RequestHandler;
import io.xio.engine.Session;
import io.xio.engine.StreamCall;
import io.xio.engine.StreamListener;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.context.properties.ConfigurationPropertiesReportEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.env.EnvironmentEndpointAutoConfiguration;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.env.EnvironmentEndpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class XioEndpointTest
{
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
            XioEndpointAutoConfiguration.class))
        .withPropertyValues("xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0");

    @Test
    void clientCredentialsAreMaskedEvenWhereValuesAreShown()
    {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
                XioEndpointAutoConfiguration.class, ConfigurationPropertiesReportEndpointAutoConfiguration.class,
                EnvironmentEndpointAutoConfiguration.class))
            .withPropertyValues("xio.contexts=1", "management.endpoints.web.exposure.include=*",
                "management.endpoint.configprops.show-values=always", "management.endpoint.env.show-values=always",
                "xio.clients.kv.uri=tcp://127.0.0.1:1/kv", "xio.clients.kv.credentials.username=svc-user",
                "xio.clients.kv.credentials.password=pw-4711", "xio.client.credentials.token=tok-4711")
            .run(context ->
            {
                final String configprops = new JsonMapper().writeValueAsString(context
                    .getBean(ConfigurationPropertiesReportEndpoint.class).configurationPropertiesWithPrefix("xio"));
                assertThat(configprops).contains("tcp://127.0.0.1:1/kv") // values are shown...
                    .doesNotContain("pw-4711").doesNotContain("tok-4711").doesNotContain("svc-user"); // ...not these
                final EnvironmentEndpoint env = context.getBean(EnvironmentEndpoint.class);
                assertThat(new JsonMapper().writeValueAsString(env.environment("xio\\..*")))
                    .contains("tcp://127.0.0.1:1/kv").doesNotContain("pw-4711").doesNotContain("tok-4711");
            });
    }

    @Test
    void clientCredentialsAreMaskedInEnvironmentVariableAndBracketSpellings()
    {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
                XioEndpointAutoConfiguration.class, EnvironmentEndpointAutoConfiguration.class))
            .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                new SystemEnvironmentPropertySource("test-environment", Map.of(
                    "XIO_CLIENTS_KV_CREDENTIALS_PASSWORD", "pw-env-4711", "XIO_CLIENT_CREDENTIALS_TOKEN", "tok-env",
                    "XIO_CLIENTS_KV_URI", "tcp://127.0.0.1:1/kv"))))
            .withPropertyValues("xio.contexts=1", "management.endpoints.web.exposure.include=*",
                "management.endpoint.env.show-values=always",
                "xio.clients[kv].credentials.username=svc-bracket", "xio.clients[\"kv\"].credentials.token=tok-q")
            .run(context ->
            {
                assertThat(context).hasNotFailed();
                final String env = new JsonMapper().writeValueAsString(
                    context.getBean(EnvironmentEndpoint.class).environment(null));
                assertThat(env).contains("tcp://127.0.0.1:1/kv") // values are shown...
                    .doesNotContain("pw-env-4711").doesNotContain("tok-env").doesNotContain("svc-bracket")
                    .doesNotContain("tok-q"); // ...not these
            });
    }

    @Test
    void showsContextsPortalsAndSessionsWhenExposed()
    {
        runner.withPropertyValues("management.endpoints.web.exposure.include=xio").run(context ->
        {
            final XioEngine engine = context.getBean(XioEngine.class);
            engine.register("echo", request ->
                request.respond(Outbound.of(request.message().header()).releaseAfterSend(request.message())));
            final String uri = engine.portals().get(0).uri().withResource("echo").toString();
            try (XioEngine client = XioEngine.builder().contexts(1).build();
                 Session session = client.connect(uri))
            {
                session.request(Outbound.of(ByteBuffer.wrap(new byte[] {1}))).get(5, TimeUnit.SECONDS).close();
                final XioEndpoint.XioDescriptor shown = context.getBean(XioEndpoint.class).xio();
                assertThat(shown.contexts()).singleElement().satisfies(c ->
                {
                    assertThat(c.traffic().framesReceived()).isPositive();
                    assertThat(c.running()).isTrue();
                    assertThat(c.busy().plus(c.idle())).isPositive();
                });
                assertThat(shown.totals().framesSent()).isPositive();
                assertThat(shown.portals()).singleElement()
                    .satisfies(p -> assertThat(p.uri()).startsWith("tcp://127.0.0.1:"));
                assertThat(shown.sessions()).singleElement().satisfies(s ->
                {
                    assertThat(s.side()).isEqualTo("server");
                    assertThat(s.resource()).isEqualTo("echo");
                    assertThat(s.state()).isEqualTo("established");
                    assertThat(s.peers()).singleElement().asString().contains("127.0.0.1");
                    assertThat(s.counters().requestsReceived()).isEqualTo(1);
                    assertThat(s.connections()).isEqualTo(1);
                });
            }
        });
    }

    /** Takes each stream and holds it open, its messages closed, until the opener ends it. */
    private static final class HoldingStreams implements RequestHandler, StreamListener
    {
        final BlockingQueue<InboundStream> held = new LinkedBlockingQueue<>();

        @Override
        public void onRequest(final InboundRequest request)
        {
            request.message().close();
            request.fail(new UnsupportedOperationException("open a stream"));
        }

        @Override
        public void onStream(final InboundStream stream)
        {
            stream.open().close();
            stream.start(this);
            held.add(stream);
        }

        @Override
        public void onMessage(final Message message)
        {
            message.close();
        }

        @Override
        public void onError(final Throwable error)
        {
        }
    }

    @Test
    void showsTheStreamsOpenOnEachSessionAndInTheEngine()
    {
        runner.withPropertyValues("management.endpoints.web.exposure.include=xio").run(context ->
        {
            final XioEngine engine = context.getBean(XioEngine.class);
            final HoldingStreams holder = new HoldingStreams();
            engine.register("feed", holder);
            final String uri = engine.portals().get(0).uri().withResource("feed").toString();
            final XioEndpoint endpoint = context.getBean(XioEndpoint.class);
            try (XioEngine client = XioEngine.builder().contexts(1).build();
                 Session session = client.connect(uri))
            {
                final CompletableFuture<Throwable> ended = new CompletableFuture<>();
                final StreamCall call = session.openStream(Outbound.empty(), new StreamListener()
                {
                    @Override
                    public void onMessage(final Message message)
                    {
                        message.close();
                    }

                    @Override
                    public void onError(final Throwable error)
                    {
                        ended.complete(error);
                    }
                });
                assertThat(holder.held.poll(10, TimeUnit.SECONDS)).as("the stream at the server").isNotNull();
                final XioEndpoint.XioDescriptor shown = endpoint.xio();
                assertThat(shown.openStreams()).isEqualTo(1);
                assertThat(shown.sessions()).singleElement()
                    .satisfies(s -> assertThat(s.counters().openStreams()).isEqualTo(1));
                // What the endpoint's JSON shows: the engine's total, and the session's among its counters.
                final JsonNode json = new JsonMapper().readTree(new JsonMapper().writeValueAsString(shown));
                assertThat(json.get("openStreams").asInt()).isEqualTo(1);
                assertThat(json.get("sessions").get(0).get("counters").get("openStreams").asInt()).isEqualTo(1);

                call.cancel();
                assertThat(ended.get(10, TimeUnit.SECONDS)).isInstanceOf(RequestCancelledException.class);
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                {
                    final XioEndpoint.XioDescriptor after = endpoint.xio();
                    assertThat(after.openStreams()).isZero();
                    assertThat(after.sessions()).singleElement()
                        .satisfies(s -> assertThat(s.counters().openStreams()).isZero());
                });
            }
        });
    }

    @Test
    void listsTheExportedServicesAndTheirMethods()
    {
        runner.withUserConfiguration(GreeterApplications.Server.class)
            .withPropertyValues("management.endpoints.web.exposure.include=xio").run(context ->
            {
                final XioEndpoint.XioDescriptor shown = context.getBean(XioEndpoint.class).xio();
                assertThat(shown.services()).extracting(XioEndpoint.ServiceDescriptor::name).contains("greeter");
                final XioEndpoint.ServiceDescriptor greeter = shown.services().stream()
                    .filter(service -> service.name().equals("greeter")).findFirst().orElseThrow();
                assertThat(greeter.api()).isEqualTo(Greeter.class.getName());
                assertThat(greeter.running()).isZero();
                assertThat(greeter.methods()).extracting(XioEndpoint.MethodDescriptor::wireName)
                    .containsExactly("fail(String)", "greet(String)", "greetLater(String)", "greetings(String,int)",
                        "slow()");
                final XioEndpoint.MethodDescriptor later = greeter.methods().get(2);
                assertThat(later.parameters()).containsExactly("java.lang.String");
                assertThat(later.returns()).isEqualTo("java.lang.String");
                assertThat(later.kind()).isEqualTo("future");
                assertThat(greeter.methods().get(3).kind()).isEqualTo("server-stream");
                assertThat(greeter.methods().get(4).timeout()).hasMillis(200);
                // What the endpoint's JSON shows (Boot writes it with a JsonMapper).
                assertThat(new JsonMapper().writeValueAsString(shown)).contains("\"wireName\":\"greet(String)\"");
            });
    }

    @Test
    void backsOffWhenNotExposed()
    {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(XioEndpoint.class));
    }
}
