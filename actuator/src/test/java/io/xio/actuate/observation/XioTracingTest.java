package io.xio.actuate.observation;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.xio.actuate.sample.GreeterApplications;
import io.xio.actuate.sample.Relay;
import io.xio.actuate.sample.RelayService;
import io.xio.actuate.sample.Runners;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryEventPublisherBeansApplicationListener;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration;
import org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A trace across two xio hops in one JVM, with Boot's Micrometer Tracing over OpenTelemetry: a client calls
 * server A's relay, whose method calls server B's greeter. Three application contexts, each with its own tracer;
 * their spans go to one in-memory exporter.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioTracingTest
{
    private static final AttributeKey<String> RPC_SYSTEM = AttributeKey.stringKey("rpc.system");
    private static final AttributeKey<String> RPC_SERVICE = AttributeKey.stringKey("rpc.service");
    private static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");
    private static final AttributeKey<String> RPC_STATUS = AttributeKey.stringKey("rpc.xio.status");
    private static final AttributeKey<String> TRANSPORT = AttributeKey.stringKey("xio.transport");

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();

    /** An application with Boot's tracing over OpenTelemetry, every trace sampled, spans exported at once. */
    private ApplicationContextRunner traced(final ApplicationContextRunner runner, final String name,
        final String propagation)
    {
        return runner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
                MicrometerTracingAutoConfiguration.class, OpenTelemetrySdkAutoConfiguration.class,
                OpenTelemetryTracingAutoConfiguration.class))
            .withPropertyValues("spring.application.name=" + name, "management.tracing.sampling.probability=1.0",
                "management.tracing.propagation.type=" + propagation)
            .withBean(SpanProcessor.class, () -> SimpleSpanProcessor.create(exporter))
            // What SpringApplication registers from spring.factories: puts the current trace into the MDC.
            .withInitializer(context -> context.addApplicationListener(
                new OpenTelemetryEventPublisherBeansApplicationListener()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"W3C", "B3_MULTI"}) // B3's X-B3-* headers become lower-case metadata keys
    void oneTraceRunsFromTheClientThroughServerAToServerB(final String propagation)
    {
        traced(Runners.server(), "b", propagation).run(serverB ->
            traced(Runners.runner(), "a", propagation).withUserConfiguration(GreeterApplications.Client.class)
                .withBean(RelayService.class)
                .withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
                    "xio.clients.greeter.uri=" + Runners.greeterUri(serverB))
                .run(serverA ->
                    traced(Runners.runner(), "client", propagation)
                        .withPropertyValues("xio.clients.relay.uri=" + relayUri(serverA))
                        .withUserConfiguration(Clients.class).withBean(RelayCaller.class)
                        .run(client ->
                        {
                            final Relay relay = client.getBean(RelayCaller.class).relay;
                            assertThat(relay.relay("x")).isEqualTo("hello x");

                            final List<SpanData> spans = awaitSpans(4);
                            final SpanData clientSpan = span(spans, SpanKind.CLIENT, "relay/relay(String)");
                            final SpanData serverASpan = span(spans, SpanKind.SERVER, "relay/relay(String)");
                            final SpanData callOfB = span(spans, SpanKind.CLIENT, "greeter/greet(String)");
                            final SpanData serverBSpan = span(spans, SpanKind.SERVER, "greeter/greet(String)");
                            final String traceId = clientSpan.getTraceId();
                            assertThat(spans).extracting(SpanData::getTraceId).containsOnly(traceId);
                            assertThat(clientSpan.getParentSpanContext().isValid()).isFalse();
                            assertThat(serverASpan.getParentSpanId()).isEqualTo(clientSpan.getSpanId());
                            assertThat(callOfB.getParentSpanId()).isEqualTo(serverASpan.getSpanId());
                            assertThat(serverBSpan.getParentSpanId()).isEqualTo(callOfB.getSpanId());
                            assertThat(serverA.getBean(RelayService.class).traceIdInside).isEqualTo(traceId);
                            assertThat(serverA.getBean(RelayService.class).loggedTraceId).isEqualTo(traceId);

                            assertThat(clientSpan.getAttributes().get(RPC_SYSTEM)).isEqualTo("xio");
                            assertThat(clientSpan.getAttributes().get(RPC_SERVICE)).isEqualTo("relay");
                            assertThat(clientSpan.getAttributes().get(RPC_METHOD)).isEqualTo("relay(String)");
                            assertThat(clientSpan.getAttributes().get(RPC_STATUS)).isEqualTo("SUCCESS");
                            assertThat(clientSpan.getAttributes().get(TRANSPORT)).isEqualTo("tcp");
                            assertThat(serverBSpan.getAttributes().get(RPC_SERVICE)).isEqualTo("greeter");
                            assertThat(serverBSpan.getAttributes().get(RPC_METHOD)).isEqualTo("greet(String)");
                            assertThat(serverBSpan.getAttributes().get(RPC_STATUS)).isEqualTo("SUCCESS");

                            exporter.reset();
                            assertThat(relay.relay("y", 2)).isEqualTo("hello yhello y");
                            final SpanData overload = span(awaitSpans(4), SpanKind.SERVER, "relay/relay(String,int)");
                            assertThat(overload.getAttributes().get(RPC_METHOD)).isEqualTo("relay(String,int)");
                        })));
    }

    @Test
    void aStreamIsOneSpanOnEachSideOfOneTraceWithItsMessagesCounted()
    {
        traced(Runners.server(), "server", "W3C").run(server ->
            traced(Runners.client(Runners.greeterUri(server)), "client", "W3C").run(client ->
            {
                assertThat(Runners.greeter(client).greetings("s", 3).collectList().block(Duration.ofSeconds(10)))
                    .containsExactly("hello s 0", "hello s 1", "hello s 2");
                final List<SpanData> spans = awaitSpans(2);
                final SpanData clientSpan = span(spans, SpanKind.CLIENT, "greeter/greetings(String,int)");
                final SpanData serverSpan = span(spans, SpanKind.SERVER, "greeter/greetings(String,int)");
                assertThat(serverSpan.getTraceId()).isEqualTo(clientSpan.getTraceId());
                assertThat(serverSpan.getParentSpanId()).isEqualTo(clientSpan.getSpanId());
                assertThat(clientSpan.getAttributes().get(AttributeKey.stringKey("xio.stream.messages.received")))
                    .isEqualTo("3");
                assertThat(serverSpan.getAttributes().get(AttributeKey.stringKey("xio.stream.messages.sent")))
                    .isEqualTo("3");
                assertThat(serverSpan.getAttributes().get(RPC_STATUS)).isEqualTo("SUCCESS");
            }));
    }

    private List<SpanData> awaitSpans(final int count)
    {
        // A server's span ends after its answer went out, so it may reach the exporter after the caller returned.
        await().atMost(Duration.ofSeconds(10)).until(() -> exporter.getFinishedSpanItems().size() >= count);
        final List<SpanData> spans = exporter.getFinishedSpanItems();
        assertThat(spans).hasSize(count);
        return spans;
    }

    private static SpanData span(final List<SpanData> spans, final SpanKind kind, final String name)
    {
        assertThat(spans).filteredOn(span -> span.getKind() == kind && span.getName().equals(name))
            .as("%s span %s among %s", kind, name, spans).hasSize(1);
        return spans.stream().filter(span -> span.getKind() == kind && span.getName().equals(name)).findFirst()
            .orElseThrow();
    }

    private static String relayUri(final ApplicationContext server)
    {
        return server.getBean(XioServiceExporter.class).portals().get(0).uri().withResource("relay").toString();
    }

    /** The client of the first hop. */
    @io.xio.annotation.XioClient("relay")
    public interface RelayClient extends Relay
    {
    }

    /** The first hop's client, outside any application package. */
    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    @io.xio.spring.autoconfigure.ImportXioClients(clients = RelayClient.class)
    static class Clients
    {
    }

    /** Holds the client proxy of the first hop. */
    public static class RelayCaller
    {
        public final Relay relay;

        RelayCaller(final RelayClient relay)
        {
            this.relay = relay;
        }
    }
}
