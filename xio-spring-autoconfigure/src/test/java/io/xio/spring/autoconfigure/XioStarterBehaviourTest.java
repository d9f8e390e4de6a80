package io.xio.spring.autoconfigure;

import io.xio.spring.autoconfigure.sample.both.BothApplication;
import io.xio.spring.autoconfigure.sample.client.ClientApplication;
import io.xio.spring.autoconfigure.sample.client.KvClient;
import io.xio.spring.autoconfigure.sample.server.KvStoreImpl;
import io.xio.spring.autoconfigure.sample.server.ServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** In-JVM use, large zero-copy payloads, cancellation and graceful shutdown through the starter. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class XioStarterBehaviourTest
{
    @Test
    void serviceAndClientInOneApplicationTalkOverLocalWithConstructorInjection()
    {
        final String name = "app-" + UUID.randomUUID();
        runner(BothApplication.class).withPropertyValues("xio.portals[0].uri=local://" + name,
            "xio.clients.kv.uri=local://" + name + "/kv").run(context ->
            {
                assertThat(context).hasNotFailed();
                context.getBean(KvClient.class).put("k", "v");
                assertThat(context.getBean(KvClient.class).get("k")).isEqualTo("v");
                context.getBean(BothApplication.KvWriter.class).write("k2", "v2");
                assertThat(context.getBean(KvClient.class).get("k2")).isEqualTo("v2");
            });
    }

    @Test
    void aBlockingCallFromAContextThreadIsRefusedAndARejectedSessionSaysWhy()
    {
        final String name = "app-" + UUID.randomUUID();
        runner(BothApplication.class).withPropertyValues("xio.portals[0].uri=local://" + name,
            "xio.clients.kv.uri=local://" + name + "/nope").run(context ->
            {
                final KvClient kv = context.getBean(KvClient.class);
                for (final Runnable blocking : new Runnable[] {() -> kv.get("x"), () -> kv.fireWithReceipt("e")})
                {
                    final CompletableFuture<Throwable> refused = new CompletableFuture<>();
                    context.getBean(io.xio.engine.XioEngine.class).contexts().get(0).execute(() ->
                    {
                        try
                        {
                            blocking.run();
                            refused.complete(null);
                        }
                        catch (final RuntimeException ex)
                        {
                            refused.complete(ex);
                        }
                    });
                    assertThat(refused.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("context thread").hasMessageContaining("CompletableFuture");
                }
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> kv.get("x"))
                    .isInstanceOf(io.xio.engine.SessionRejectedException.class)
                    .hasMessageContaining("/nope").hasMessageContaining("no such service");
            });
    }

    @Test
    void theSameServiceWorksOverShmByChangingOnlyTheUri()
    {
        final String name = "starter-" + UUID.randomUUID().toString().substring(0, 8);
        runner(ServerApplication.class).withPropertyValues("xio.portals[0].uri=shm://" + name).run(server ->
            runner(ClientApplication.class).withPropertyValues("xio.clients.kv.uri=shm://" + name + "/kv").run(client ->
            {
                final KvClient kv = client.getBean(KvClient.class);
                kv.put("over", "shm");
                assertThat(kv.get("over")).isEqualTo("shm");
                assertThat(kv.add(40, 2)).isEqualTo(42);
            }));
    }

    private static void withServerAndClient(final java.util.function.BiConsumer<
        org.springframework.boot.test.context.assertj.AssertableApplicationContext, KvClient> test)
    {
        runner(ServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
            "xio.shutdown.grace-period=10s").run(server ->
            {
                final int port = server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
                runner(ClientApplication.class).withPropertyValues(
                    "xio.clients.kv.uri=tcp://127.0.0.1:" + port + "/kv", "xio.clients.kv.timeout=30s")
                    .run(client -> test.accept(server, client.getBean(KvClient.class)));
            });
    }

    @Test
    void a64MiBBufferGoesThereAndBackAsDataSegments()
    {
        withServerAndClient((server, kv) ->
        {
            final ByteBuffer data = ByteBuffer.allocateDirect(64 << 20);
            for (int i = 0; i < data.capacity(); i += 8)
            {
                data.putLong(i, i * 31L);
            }
            final ByteBuffer back = kv.echo(data);
            assertThat(back.remaining()).isEqualTo(64 << 20);
            assertThat(crc(back)).isEqualTo(crc(data));
        });
    }

    private static long crc(final ByteBuffer buffer)
    {
        final CRC32C crc = new CRC32C();
        crc.update(buffer.duplicate());
        return crc.getValue();
    }

    @Test
    void cancellingTheReturnedFutureCancelsTheCallOnTheServer()
    {
        withServerAndClient((server, kv) ->
        {
            final String id = UUID.randomUUID().toString();
            final CompletableFuture<String> call = kv.hold(id);
            await().atMost(Duration.ofSeconds(5)).until(() -> KvStoreImpl.HELD.containsKey(id));
            assertThat(call.cancel(true)).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> KvStoreImpl.HELD.get(id).isCancelled());
        });
    }

    @Test
    void shutdownLetsCallsInFlightFinish()
    {
        withServerAndClient((server, kv) ->
        {
            KvStoreImpl.pausing = new CountDownLatch(1);
            final CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> kv.pause(700));
            try
            {
                assertThat(KvStoreImpl.pausing.await(10, TimeUnit.SECONDS)).isTrue();
                server.close(); // returns once the call finished or the grace period ran out
                assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("paused 700");
            }
            catch (final Exception ex)
            {
                throw new AssertionError(ex);
            }
        });
    }
}
