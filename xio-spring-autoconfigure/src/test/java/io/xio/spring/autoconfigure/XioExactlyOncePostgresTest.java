package io.xio.spring.autoconfigure;

import io.xio.ledger.LocalPostgres;
import io.xio.ledger.LocalPostgresExtension;
import io.xio.spring.autoconfigure.ExactlyOnceFixtures.KeysSeen;
import io.xio.spring.autoconfigure.sample.exactlyonce.api.Transfers.Receipt;
import io.xio.spring.autoconfigure.sample.exactlyonce.client.AsyncTransfersClient;
import io.xio.spring.autoconfigure.sample.exactlyonce.client.TransfersClient;
import io.xio.spring.autoconfigure.sample.exactlyonce.client.TransfersClientApplication;
import io.xio.spring.autoconfigure.sample.exactlyonce.server.TransfersServerApplication;
import io.xio.spring.autoconfigure.sample.exactlyonce.server.TransfersService;
import io.xio.spring.call.XioServerInterceptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import javax.sql.DataSource;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.entries;
import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.port;
import static io.xio.spring.autoconfigure.ExactlyOnceFixtures.server;
import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link XioExactlyOnceTest}'s central cases on a real PostgreSQL ({@link LocalPostgres}, the machine's own; skipped
 * where there is none, unless {@value LocalPostgres#REQUIRED} says it must be there), the ledger's table created at
 * start-up ({@code xio.ledger.initialize-schema=always}): a call whose connection broke after it ran is replayed with
 * its key, blocking and on a future, and an unchecked exception leaves neither writes nor entry. The client has no
 * interceptor, so its calls take the engine's listener path.
 */
@ExtendWith(LocalPostgresExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class XioExactlyOncePostgresTest
{
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final KeysSeen keysSeen = new KeysSeen();

    @Test
    void aCallWhoseConnectionBrokeAfterItRanIsReplayedAndAFailedOneLeavesNothing(final LocalPostgres postgres)
        throws Exception
    {
        final String url = postgres.createDatabase("eo_spring_" + DATABASES.incrementAndGet());
        server(TransfersServerApplication.class)
            .withBean(DataSource.class, () -> new DriverManagerDataSource(url))
            .withBean(XioServerInterceptor.class, () -> keysSeen)
            .withPropertyValues("xio.ledger.initialize-schema=always")
            .run(server ->
            {
                assertThat(server).hasNotFailed();
                // No client interceptor: the calls take the engine's listener path.
                runner(TransfersClientApplication.class)
                    .withPropertyValues("xio.clients.transfers.uri=tcp://127.0.0.1:" + port(server) + "/transfers",
                        "xio.client.retry.initial-backoff=10ms", "xio.client.retry.max-backoff=20ms")
                    .run(client ->
                    {
                        assertThat(client).hasNotFailed();
                        final TransfersService service = server.getBean(TransfersService.class);
                        final TransfersClient transfers = client.getBean(TransfersClient.class);

                        service.goAwayNext(1);
                        assertThat(transfers.transfer("p1", 4)).isEqualTo(new Receipt("p1", 4, 1));
                        assertThat(service.executions()).isEqualTo(1);
                        assertThat(keysSeen.keys.subList(0, 2)).containsOnly(keysSeen.keys.get(0));
                        assertThat(entries(server, keysSeen.keys.get(0))).isEqualTo(1);
                        assertThat(transfers.rows("p1")).isEqualTo(1);

                        service.goAwayNext(1);
                        assertThat(client.getBean(AsyncTransfersClient.class).transfer("p3", 5)
                            .get(10, TimeUnit.SECONDS)).isEqualTo(new Receipt("p3", 5, 2));
                        assertThat(service.executions()).isEqualTo(2);
                        final String futureKey = keysSeen.keys.get(keysSeen.keys.size() - 1);
                        assertThat(keysSeen.keys.get(keysSeen.keys.size() - 2)).isEqualTo(futureKey);
                        assertThat(entries(server, futureKey)).isEqualTo(1);
                        assertThat(transfers.rows("p3")).isEqualTo(1);

                        assertThatThrownBy(() -> transfers.failUnchecked("p2"))
                            .isInstanceOf(IllegalStateException.class);
                        final String uncheckedKey = keysSeen.keys.get(keysSeen.keys.size() - 1);
                        assertThat(transfers.rows("p2")).isZero();
                        assertThat(entries(server, uncheckedKey)).isZero();
                    });
            });
    }
}
