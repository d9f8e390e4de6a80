package io.xio.sample.client;

import io.xio.sample.SampleProperties;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.mock.env.MockEnvironment;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The load fails (so the process exits non-zero) on a value read back wrongly, and after its retries. */
class LoadRunnerFailureTest
{
    @Test
    void aValueReadBackWronglyFailsTheLoadWithoutARetry() throws Exception
    {
        final AtomicInteger puts = new AtomicInteger();
        final LoadRunner load = load(new Store(puts, false), 5);
        load.onApplicationEvent(null);
        assertThatThrownBy(() -> load.done().get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(LoadRunner.MismatchException.class).hasMessageContaining("10 of 10 values");
        assertThat(puts).hasValue(10);
        assertThat(load.reports()).singleElement().extracting(LoadRunner.Report::mismatches).isEqualTo(10L);
    }

    @Test
    void aRoundThatKeepsFailingFailsTheLoadAfterItsRetries() throws Exception
    {
        final AtomicInteger puts = new AtomicInteger();
        final LoadRunner load = load(new Store(puts, true), 2);
        load.onApplicationEvent(null);
        assertThatThrownBy(() -> load.done().get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().hasMessageContaining("failed 3 times").hasMessageContaining("sample.retries=2");
        assertThat(puts).hasValue(3);
    }

    private static LoadRunner load(final BlobsClient store, final int retries)
    {
        final SampleProperties properties = new SampleProperties();
        properties.setClients(List.of("blobs"));
        properties.setValues(10);
        properties.setValueSize(64);
        properties.setThroughputTime(Duration.ZERO);
        properties.setRoundPause(Duration.ofMillis(1));
        properties.setLinger(Duration.ZERO);
        properties.setRetries(retries);
        final DefaultListableBeanFactory none = new DefaultListableBeanFactory();
        return new LoadRunner(properties, new MockEnvironment(), store, none.getBeanProvider(ShmBlobsClient.class),
            none.getBeanProvider(FeedRunner.class), none.getBeanProvider(PaymentsRunner.class));
    }

    /** Answers every read with zeros (never what was stored), or fails every put. */
    private record Store(AtomicInteger puts, boolean failPuts) implements BlobsClient
    {
        @Override
        public void put(final String key, final ByteBuffer value)
        {
            puts.incrementAndGet();
            if (failPuts)
            {
                throw new IllegalStateException("server down");
            }
        }

        @Override
        public ByteBuffer get(final String key)
        {
            return ByteBuffer.allocate(64);
        }

        @Override
        public CompletableFuture<ByteBuffer> getAsync(final String key)
        {
            return CompletableFuture.completedFuture(get(key));
        }

        @Override
        public int write(final String client, final long sequence)
        {
            return 0;
        }

        @Override
        public boolean delete(final String key)
        {
            return false;
        }

        @Override
        public Summary summary()
        {
            return new Summary("test", 0, 0, 0);
        }
    }
}
