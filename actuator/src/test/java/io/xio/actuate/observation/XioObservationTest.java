package io.xio.actuate.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.xio.actuate.metrics.XioTimerInstrumentation;
import io.xio.actuate.sample.Greeter;
import io.xio.actuate.sample.Runners;
import io.xio.spring.observation.XioInstrumentation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioObservationTest
{
    @Configuration(proxyBeanMethods = false)
    static class Tracing
    {
        @Bean
        TestObservationRegistry observationRegistry()
        {
            return TestObservationRegistry.create();
        }

        @Bean
        Tracer tracer()
        {
            return new SimpleTracer();
        }
    }

    @Test
    void withATracerCallsAreObservedOnBothSides()
    {
        Runners.server().withUserConfiguration(Tracing.class).run(server ->
            Runners.client(Runners.greeterUri(server)).withUserConfiguration(Tracing.class).run(client ->
            {
                assertThat(client).getBean(XioInstrumentation.class).isInstanceOf(XioObservationInstrumentation.class);
                final Greeter greeter = Runners.greeter(client);
                assertThat(greeter.greet("a")).isEqualTo("hello a");
                assertThatThrownBy(() -> greeter.fail("no")).isInstanceOf(IllegalStateException.class);
                TestObservationRegistryAssert.assertThat(client.getBean(TestObservationRegistry.class))
                    .hasNumberOfObservationsWithNameEqualTo("xio.client.requests", 2)
                    .hasAnObservation(observation -> observation.hasNameEqualTo("xio.client.requests")
                        .hasContextualNameEqualTo("greeter/greet(String)")
                        .hasLowCardinalityKeyValue("rpc.system", "xio")
                        .hasLowCardinalityKeyValue("rpc.service", "greeter")
                        .hasLowCardinalityKeyValue("rpc.method", "greet(String)")
                        .hasLowCardinalityKeyValue("rpc.xio.status", "SUCCESS")
                        .hasLowCardinalityKeyValue("xio.transport", "tcp")
                        .hasLowCardinalityKeyValue("outcome", "SUCCESS")
                        .hasLowCardinalityKeyValue("method", "greet")
                        .hasLowCardinalityKeyValue("transport", "tcp")
                        .isInstanceOf(XioClientObservationContext.class))
                    .hasAnObservation(observation -> observation.hasContextualNameEqualTo("greeter/fail(String)")
                        .hasLowCardinalityKeyValue("rpc.xio.status", "SERVICE_ERROR")
                        .hasLowCardinalityKeyValue("outcome", "SERVICE_ERROR").hasError());
                org.awaitility.Awaitility.await().untilAsserted(() ->
                    TestObservationRegistryAssert.assertThat(server.getBean(TestObservationRegistry.class))
                        .hasNumberOfObservationsWithNameEqualTo("xio.server.requests", 2));
            }));
    }

    @Test
    void aStreamIsOneObservationCarryingItsMessageCounts()
    {
        final TestObservationRegistry registry = TestObservationRegistry.create();
        final XioInstrumentation.CallRecorder recorder = new XioObservationInstrumentation(registry)
            .recorder(new io.xio.spring.observation.XioCall(io.xio.spring.observation.XioCall.Side.SERVER, "quotes",
                "feed", "feed(String)", "tcp"));
        final Object started = recorder.start(io.xio.engine.Metadata.EMPTY);
        recorder.streamed(started, 7, 1);
        recorder.stop(started, System.nanoTime(), io.xio.spring.observation.XioCallOutcome.SUCCESS, null);
        TestObservationRegistryAssert.assertThat(registry)
            .hasNumberOfObservationsWithNameEqualTo("xio.server.requests", 1)
            .hasAnObservation(observation -> observation.hasContextualNameEqualTo("quotes/feed(String)")
                .hasHighCardinalityKeyValue("xio.stream.messages.sent", "7")
                .hasHighCardinalityKeyValue("xio.stream.messages.received", "1")
                .hasLowCardinalityKeyValue("rpc.xio.status", "SUCCESS"));
    }

    /** Names the server's observations its own way, as an application's convention bean would. */
    static final class TenantConvention extends DefaultXioServerObservationConvention
    {
        @Override
        public String getName()
        {
            return "rpc.server.calls";
        }

        @Override
        public KeyValues getLowCardinalityKeyValues(final XioServerObservationContext context)
        {
            return super.getLowCardinalityKeyValues(context).and("tenant", "blue");
        }
    }

    @Test
    void aConventionBeanReplacesTheDefault()
    {
        Runners.server().withUserConfiguration(Tracing.class)
            .withBean(XioServerObservationConvention.class, TenantConvention::new).run(server ->
                Runners.client(Runners.greeterUri(server)).withUserConfiguration(Tracing.class).run(client ->
                {
                    assertThat(Runners.greeter(client).greet("a")).isEqualTo("hello a");
                    org.awaitility.Awaitility.await().untilAsserted(() ->
                        TestObservationRegistryAssert.assertThat(server.getBean(TestObservationRegistry.class))
                            .hasNumberOfObservationsWithNameEqualTo("xio.server.requests", 0)
                            .hasObservationWithNameEqualTo("rpc.server.calls").that()
                            .hasContextualNameEqualTo("greeter/greet(String)")
                            .hasLowCardinalityKeyValue("tenant", "blue")
                            .hasLowCardinalityKeyValue("rpc.xio.status", "SUCCESS")
                            .isInstanceOf(XioServerObservationContext.class));
                    // The client's side, without a bean of its own, keeps the default.
                    TestObservationRegistryAssert.assertThat(client.getBean(TestObservationRegistry.class))
                        .hasObservationWithNameEqualTo("xio.client.requests").that()
                        .doesNotHaveLowCardinalityKeyValueWithKey("tenant");
                }));
    }

    @Test
    void withoutATracerPlainTimersRecordCalls()
    {
        Runners.server().run(server -> assertThat(server).getBean(XioInstrumentation.class)
            .isInstanceOf(XioTimerInstrumentation.class));
    }
}
