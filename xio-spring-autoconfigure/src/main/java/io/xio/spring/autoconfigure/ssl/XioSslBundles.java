package io.xio.spring.autoconfigure.ssl;

import io.xio.engine.TlsOptions;
import io.xio.engine.XioUri;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslOptions;

import javax.net.ssl.SSLContext;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * TLS options for the {@code tls} transport from a Spring Boot SSL bundle ({@code spring.ssl.bundle.*}), the way
 * Boot's own web servers take theirs: the bundle's key and trust material as the SSL context, its enabled
 * protocols and ciphers (TLSv1.3 when it names no protocol). When the bundle is reloaded (a bundle with
 * {@code reload-on-update: true} whose files changed), the context the options supply is swapped, so connections
 * made from then on use the new material and open ones keep theirs; the protocols and ciphers stay those read at
 * start-up. A setting that cannot apply fails start-up naming its property. Made once per bundle of an
 * {@link SslBundles}; thread-safe.
 */
public final class XioSslBundles
{
    /** What a bundle that names no protocol gets. */
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3");

    /**
     * The options made so far of each context's bundles: every client and portal of one bundle shares them (and
     * derives its own client-auth or host-name check), so that the bundle's reload handler is registered once,
     * not once per client made. Weak keys: a closed context's registry goes with its entries.
     */
    private static final Map<SslBundles, Map<String, TlsOptions>> MADE = new WeakHashMap<>();

    private XioSslBundles()
    {
    }

    /**
     * The options of the bundle named {@code bundle}, set by {@code property} for the endpoint at {@code uri}; the
     * same for every call with this bundle of {@code bundles}.
     *
     * @param bundles the context's bundles; null when it has none (no {@code SslAutoConfiguration})
     * @throws InvalidConfigurationPropertyValueException naming {@code property} when {@code uri} is not tls, or
     * there is no such bundle
     */
    public static TlsOptions tlsOptions(final @Nullable SslBundles bundles, final String property, final String bundle,
        final String uri)
    {
        if (!"tls".equals(XioUri.parse(uri).scheme()))
        {
            throw new InvalidConfigurationPropertyValueException(property, bundle, "an SSL bundle needs a tls:// " +
                "address, and '" + uri + "' is not one (write tls://host:port for tcp with TLS)");
        }
        if (bundles == null)
        {
            throw new InvalidConfigurationPropertyValueException(property, bundle, "the application has no SSL " +
                "bundles (Spring Boot's SslAutoConfiguration is not active)");
        }
        final Map<String, TlsOptions> made;
        synchronized (MADE)
        {
            made = MADE.computeIfAbsent(bundles, b -> new ConcurrentHashMap<>());
        }
        try
        {
            return made.computeIfAbsent(bundle, name -> tlsOptions(bundles, name));
        }
        catch (final NoSuchSslBundleException ex)
        {
            throw new InvalidConfigurationPropertyValueException(property, bundle, "there is no SSL bundle named '" +
                bundle + "' (spring.ssl.bundle.pem." + bundle + ".* or spring.ssl.bundle.jks." + bundle + ".*)");
        }
    }

    /** Reads the bundle and registers for its reloads: once per bundle (see {@link #MADE}). */
    private static TlsOptions tlsOptions(final SslBundles bundles, final String bundle)
    {
        final SslBundle initial = bundles.getBundle(bundle);
        final ReloadingContext context = new ReloadingContext(initial.createSslContext());
        bundles.addBundleUpdateHandler(bundle, updated -> context.current = updated.createSslContext());
        final SslOptions options = initial.getOptions();
        final String[] protocols = options.getEnabledProtocols();
        final String[] ciphers = options.getCiphers();
        return TlsOptions.of(context)
            .withProtocols(protocols == null || protocols.length == 0 ? DEFAULT_PROTOCOLS : Arrays.asList(protocols))
            .withCipherSuites(ciphers == null ? List.of() : Arrays.asList(ciphers));
    }

    /** The bundle's context as of its last reload: read on context threads, swapped by the bundle's watcher. */
    private static final class ReloadingContext implements Supplier<SSLContext>
    {
        private volatile SSLContext current;

        ReloadingContext(final SSLContext initial)
        {
            this.current = initial;
        }

        @Override
        public SSLContext get()
        {
            return current;
        }
    }
}
