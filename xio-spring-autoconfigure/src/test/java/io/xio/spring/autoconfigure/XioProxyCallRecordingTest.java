package io.xio.spring.autoconfigure;

import io.xio.spring.observation.XioInstrumentation;
import io.xio.spring.autoconfigure.sample.slow.client.SlowClient;
import io.xio.spring.autoconfigure.sample.slow.client.SlowClientApplication;
import io.xio.spring.autoconfigure.sample.slow.server.SlowServerApplication;
import io.xio.spring.autoconfigure.sample.slow.server.SlowService;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The proxy's path without interceptors, where the returned future is itself the engine's listener: a future its
 * caller completed (or timed out with {@code orTimeout}) before the answer came still has its call recorded once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioProxyCallRecordingTest
{
    @Test
    void anAsyncCallWhoseFutureItsCallerTimedOutIsStillRecorded()
    {
        final RecordedOutcomes outcomes = new RecordedOutcomes();
        runner(SlowServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0")
            .run(server -> runner(SlowClientApplication.class).withBean(XioInstrumentation.class, () -> outcomes)
                .withPropertyValues("xio.clients.slow.uri=tcp://127.0.0.1:" +
                    server.getBean(XioServiceExporter.class).portals().get(0).uri().port() + "/slow",
                    "xio.clients.slow.timeout=30s")
                .run(client ->
                {
                    final SlowService service = server.getBean(SlowService.class);
                    final CompletableFuture<String> call = client.getBean(SlowClient.class).workAsync("late")
                        .orTimeout(1, TimeUnit.MILLISECONDS); // the caller's own, shorter, limit
                    await().atMost(Duration.ofSeconds(10)).until(call::isDone);
                    await().atMost(Duration.ofSeconds(10)).until(() -> service.ran().size() == 1);
                    service.release(); // the answer arrives after the caller's future completed
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                        assertThat(outcomes.recorded).as("the call's recorded outcomes").hasSize(1));
                }));
    }
}
