package io.xio.spring.autoconfigure.ssl;

import io.xio.engine.TlsOptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.ssl.DefaultSslBundleRegistry;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslStoreBundle;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/** The TLS options of a bundle are made once: many clients of one bundle register one reload handler. */
class XioSslBundlesTest
{
    /** Counts the update handlers registered with it. */
    static final class CountingSslBundles implements SslBundles
    {
        final DefaultSslBundleRegistry registry = new DefaultSslBundleRegistry("trust",
            SslBundle.of(SslStoreBundle.NONE));
        final AtomicInteger handlers = new AtomicInteger();

        @Override
        public SslBundle getBundle(final String name)
        {
            return registry.getBundle(name);
        }

        @Override
        public void addBundleUpdateHandler(final String name, final Consumer<SslBundle> handler)
        {
            handlers.incrementAndGet();
            registry.addBundleUpdateHandler(name, handler);
        }

        @Override
        public void addBundleRegisterHandler(final BiConsumer<String, SslBundle> handler)
        {
            registry.addBundleRegisterHandler(handler);
        }

        @Override
        public List<String> getBundleNames()
        {
            return registry.getBundleNames();
        }
    }

    @Test
    void manyClientsOfOneBundleRegisterOneUpdateHandler()
    {
        final CountingSslBundles bundles = new CountingSslBundles();
        final TlsOptions first = XioSslBundles.tlsOptions(bundles, "xio.clients.a.ssl.bundle", "trust",
            "tls://127.0.0.1:1/a");
        for (int i = 0; i < 100; i++)
        {
            assertThat(XioSslBundles.tlsOptions(bundles, "xio.clients.c" + i + ".ssl.bundle", "trust",
                "tls://127.0.0.1:1/c" + i)).isSameAs(first);
        }
        assertThat(bundles.handlers).hasValue(1);
        // Another context's bundles of the same name are its own.
        final CountingSslBundles other = new CountingSslBundles();
        assertThat(XioSslBundles.tlsOptions(other, "p", "trust", "tls://127.0.0.1:1/a")).isNotSameAs(first);
        assertThat(other.handlers).hasValue(1);
    }
}
