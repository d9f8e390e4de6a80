package io.xio.actuate;

import io.xio.actuate.endpoint.XioEndpoint;
import io.xio.actuate.health.XioHealthIndicator;
import io.xio.actuate.sample.Runners;
import io.xio.engine.XioEngine;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code xio} endpoint's write operation ({@code POST /actuator/xio}) drains a running server: its session is
 * drained, the health turns OUT_OF_SERVICE with {@code draining: true}, the endpoint shows it, and a second drain
 * reports the first; an application that exports nothing has nothing to drain.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioDrainEndpointTest
{
    @Test
    void theWriteOperationDrainsTheServer()
    {
        Runners.server().withPropertyValues("management.endpoints.web.exposure.include=xio", "xio.shutdown" +
            ".grace-period=5s").run(server -> Runners.client(Runners.greeterUri(server)).run(client ->
            {
                assertThat(Runners.greeter(client).greet("before")).contains("before");
                final XioHealthIndicator health = server.getBean(XioHealthIndicator.class);
                assertThat(health(health).getStatus()).isEqualTo(Status.UP);
                assertThat(health(health).getDetails()).containsEntry("draining", false);

                final XioEndpoint endpoint = server.getBean(XioEndpoint.class);
                final XioEndpoint.DrainDescriptor drained = endpoint.drain();

                assertThat(drained.drained()).isTrue();
                assertThat(drained.sessions()).isEqualTo(1);
                assertThat(drained.detail()).contains("1 session(s)");
                assertThat(server.getBean(XioServiceExporter.class).isDraining()).isTrue();
                assertThat(server.getBean(XioEngine.class).isDraining()).isTrue();
                assertThat(health(health).getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                assertThat(health(health).getDetails()).containsEntry("draining", true);
                assertThat(endpoint.xio().draining()).isTrue();
                assertThat(endpoint.drain().detail()).isEqualTo("drained before");
            }));
    }

    @Test
    void aClientOnlyApplicationHasNothingToDrain()
    {
        Runners.runner().withPropertyValues("management.endpoints.web.exposure.include=xio").run(context ->
        {
            final XioEndpoint.DrainDescriptor drained = context.getBean(XioEndpoint.class).drain();
            assertThat(drained.sessions()).isZero();
        });
    }

    private static Health health(final XioHealthIndicator indicator)
    {
        return indicator.health(true);
    }
}
