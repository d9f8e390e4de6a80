package io.xio.spring.autoconfigure;

import io.xio.engine.XioTimeoutException;
import io.xio.spring.client.XioRemoteException;
import io.xio.spring.autoconfigure.sample.api.KvStore;
import io.xio.spring.autoconfigure.sample.client.ClientApplication;
import io.xio.spring.autoconfigure.sample.client.KvClient;
import io.xio.spring.autoconfigure.sample.server.KvStoreImpl;
import io.xio.spring.autoconfigure.sample.server.ServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** A service and a client in separate application contexts, talking over tcp on 127.0.0.1. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioAutoConfigurationEndToEndTest
{
    static ApplicationContextRunner runner(final Class<?> application)
    {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class))
            .withUserConfiguration(application)
            .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s");
    }

    @ParameterizedTest
    @ValueSource(strings = {"smile", "json", "cbor"})
    void everyReturnTypeGenericsSegmentsOverloadsAndExceptionsRoundTrip(final String codec)
    {
        runner(ServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0", "xio.codec=" + codec)
            .run(server ->
        {
            assertThat(server).hasNotFailed().hasSingleBean(KvStoreImpl.class);
            final int port = server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
            runner(ClientApplication.class)
                .withPropertyValues("xio.codec=" + codec, "xio.clients.kv.uri=tcp://127.0.0.1:" + port + "/kv")
                .run(client ->
                {
                    final KvClient kv = client.getBean(KvClient.class);
                    kv.put("a", "1");
                    assertThat(kv.get("a")).isEqualTo("1");
                    assertThat(kv.get("missing")).isNull();
                    assertThat(kv.size().get(5, TimeUnit.SECONDS)).isEqualTo(1);
                    assertThat(kv.orders("c")).containsExactly(new KvStore.Order("c-1", 3, List.of("a", "b")),
                        new KvStore.Order("c-2", 1, List.of()));
                    assertThat(kv.stock(List.of("ab", "xyz"))).isEqualTo(Map.of("ab", Optional.of(2),
                        "xyz", Optional.empty()));
                    assertThat(kv.add(1)).isEqualTo(2);
                    kv.save("o", new KvStore.Order("o", 9, List.of("t")));
                    assertThat(kv.load("o")).isEqualTo(new KvStore.Order("o", 9, List.of("t")));
                    assertThat(kv.add(2, 3)).isEqualTo(5);
                    final ByteBuffer blob = ByteBuffer.allocateDirect(1 << 20);
                    for (int i = 0; i < blob.capacity(); i++)
                    {
                        blob.put(i, (byte)i);
                    }
                    assertThat(kv.putBlob("b", blob)).isEqualTo(1 << 20);
                    final byte[] back = kv.blob("b");
                    assertThat(back).hasSize(1 << 20);
                    assertThat(back[12345]).isEqualTo((byte)12345);
                    assertThatThrownBy(() -> kv.failWith("no such key"))
                        .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("no such key");
                    // Undeclared: its type and message stay on the server (xio.server.error.*).
                    assertThatThrownBy(kv::failStrangely).isInstanceOf(XioRemoteException.class)
                        .hasMessageNotContaining(KvStoreImpl.Odd.class.getName()).hasMessageNotContaining("odd 7")
                        .hasMessageContaining("error id");
                    assertThatThrownBy(kv::slow).isInstanceOf(XioTimeoutException.class);
                    kv.fireWithReceipt("tracked"); // returns once the server accepted it; it runs on a worker
                    await().atMost(Duration.ofSeconds(5)).until(() -> kv.events().contains("tracked"));
                    kv.fire("untracked");
                    await().atMost(Duration.ofSeconds(5)).until(() -> kv.events().contains("untracked"));
                });
        });
    }

    @Test
    void aClientWhoseServerIsDownStartsAndFailsItsCallsClearly()
    {
        runner(ClientApplication.class).withPropertyValues("xio.clients.kv.uri=tcp://127.0.0.1:1/kv",
            "xio.client.timeout=1s").run(client ->
        {
            assertThat(client).hasNotFailed();
            final KvClient kv = client.getBean(KvClient.class);
            assertThatThrownBy(() -> kv.get("a")).isInstanceOf(io.xio.engine.ConnectionException.class)
                .hasMessageContaining("tcp://127.0.0.1:1");
        });
    }
}
