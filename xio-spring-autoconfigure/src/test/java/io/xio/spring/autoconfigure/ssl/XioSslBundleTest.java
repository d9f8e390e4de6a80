package io.xio.spring.autoconfigure.ssl;

import io.xio.engine.Session;
import io.xio.engine.TlsHandshakeException;
import io.xio.engine.XioEngine;
import io.xio.engine.transport.tls.TestCertificates;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.client.XioClientFactoryBean;
import io.xio.spring.autoconfigure.sample.api.KvStore;
import io.xio.spring.autoconfigure.sample.client.ClientApplication;
import io.xio.spring.autoconfigure.sample.client.KvClient;
import io.xio.spring.autoconfigure.sample.server.ServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Portals and clients on tls:// configured through Spring Boot SSL bundles: PEM and JKS bundles, the bundle's
 * protocols, mutual TLS, a reloaded bundle's new certificate for new connections while open ones go on, and the
 * settings that cannot apply failing start-up naming their property. Certificates are made for each test.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioSslBundleTest
{
    @TempDir
    Path dir;

    private TestCertificates certificates;

    @BeforeEach
    void writeCertificates() throws IOException
    {
        certificates = TestCertificates.create();
        TestCertificates.writePem(dir, "server", certificates.server());
        TestCertificates.writePem(dir, "client", certificates.client());
        TestCertificates.writePem(dir, "ca", certificates.ca().certificate());
        TestCertificates.writePem(dir, "other-ca", certificates.untrustedCa().certificate());
        TestCertificates.writePem(dir, "other-server", certificates.untrustedServer());
        TestCertificates.writeKeyStore(dir, "server", "JKS", certificates.server());
        TestCertificates.writeKeyStore(dir, "client", "JKS", certificates.client());
        TestCertificates.writeTrustStore(dir, "ca", "JKS", certificates.ca().certificate());
    }

    private static ApplicationContextRunner runner(final Class<?> application)
    {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, SslAutoConfiguration.class,
                XioAutoConfiguration.class))
            .withUserConfiguration(application)
            .withPropertyValues("xio.contexts=1", "xio.idle.busy-poll=0s");
    }

    private String file(final String name)
    {
        return "file:" + dir.resolve(name);
    }

    private String[] pemServer()
    {
        return new String[] {"xio.portals[0].uri=tls://127.0.0.1:0", "xio.portals[0].ssl.bundle=server",
            "spring.ssl.bundle.pem.server.keystore.certificate=" + file("server.crt"),
            "spring.ssl.bundle.pem.server.keystore.private-key=" + file("server.key")};
    }

    private String[] pemClient(final int port, final String trusted)
    {
        return new String[] {"xio.clients.kv.uri=tls://127.0.0.1:" + port + "/kv", "xio.clients.kv.ssl.bundle=trust",
            "spring.ssl.bundle.pem.trust.truststore.certificate=" + file(trusted)};
    }

    private static void server(final String[] properties, final ContextConsumer<AssertableApplicationContext> test)
    {
        runner(ServerApplication.class).withPropertyValues(properties).run(server ->
        {
            assertThat(server).hasNotFailed();
            test.accept(server);
        });
    }

    private static int port(final AssertableApplicationContext server)
    {
        return server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
    }

    private static Session serverSession(final AssertableApplicationContext server)
    {
        return server.getBean(XioEngine.class).sessions().stream().filter(Session::isServerSide).findFirst()
            .orElseThrow();
    }

    @Test
    void pemBundlesSecureAPortalAndAClientWithTls13()
    {
        server(pemServer(), server -> runner(ClientApplication.class).withPropertyValues(pemClient(port(server),
            "ca.crt")).run(client ->
            {
                final KvClient kv = client.getBean(KvClient.class);
                kv.put("k", "v");
                assertThat(kv.get("k")).isEqualTo("v");
                assertThat(serverSession(server).peer().tlsProtocol()).isEqualTo("TLSv1.3");
            }));
    }

    @Test
    void aClientThatDoesNotTrustThePortalsCertificateCannotCallIt()
    {
        server(pemServer(), server -> runner(ClientApplication.class).withPropertyValues(pemClient(port(server),
            "other-ca.crt")).withPropertyValues("xio.client.timeout=2s").run(client ->
            assertThat(handshakeFailure(catchThrowable(() -> client.getBean(KvClient.class).get("k"))))
                .hasMessageContaining("is not trusted")));
    }

    @Test
    void jksBundlesWithMutualTlsAndTheBundlesProtocols()
    {
        final String[] jks = {"xio.portals[0].uri=tls://127.0.0.1:0", "xio.portals[0].ssl.bundle=server",
            "xio.portals[0].ssl.client-auth=need",
            "spring.ssl.bundle.jks.server.keystore.location=" + file("server.jks"),
            "spring.ssl.bundle.jks.server.keystore.password=" + TestCertificates.PASSWORD,
            "spring.ssl.bundle.jks.server.keystore.type=JKS",
            "spring.ssl.bundle.jks.server.truststore.location=" + file("ca.jks"),
            "spring.ssl.bundle.jks.server.truststore.password=" + TestCertificates.PASSWORD,
            "spring.ssl.bundle.jks.server.truststore.type=JKS",
            "spring.ssl.bundle.jks.server.options.enabled-protocols=TLSv1.2"};
        server(jks, server ->
        {
            final int port = port(server);
            runner(ClientApplication.class).withPropertyValues("xio.clients.kv.uri=tls://127.0.0.1:" + port + "/kv",
                "xio.client.ssl.bundle=mine", // the default of every tls client
                "spring.ssl.bundle.jks.mine.keystore.location=" + file("client.jks"),
                "spring.ssl.bundle.jks.mine.keystore.password=" + TestCertificates.PASSWORD,
                "spring.ssl.bundle.jks.mine.keystore.type=JKS",
                "spring.ssl.bundle.jks.mine.truststore.location=" + file("ca.jks"),
                "spring.ssl.bundle.jks.mine.truststore.password=" + TestCertificates.PASSWORD,
                "spring.ssl.bundle.jks.mine.truststore.type=JKS",
                "spring.ssl.bundle.jks.mine.options.enabled-protocols=TLSv1.2").run(client ->
                {
                    client.getBean(KvClient.class).put("k", "v");
                    final Session session = serverSession(server);
                    assertThat(session.peer().tlsProtocol()).isEqualTo("TLSv1.2");
                    assertThat(session.peer().certificate().getSubjectX500Principal().getName())
                        .isEqualTo(certificates.client().subject());
                });
            // Without a certificate of its own the handshake fails: client-auth=need.
            runner(ClientApplication.class).withPropertyValues(pemClient(port, "ca.crt"))
                .withPropertyValues("xio.client.timeout=2s", "spring.ssl.bundle.pem.trust.options.enabled-protocols" +
                    "=TLSv1.2").run(client ->
                    assertThat(handshakeFailure(catchThrowable(() -> client.getBean(KvClient.class).get("k"))))
                        .hasMessageContaining("client certificate"));
        });
    }

    @Test
    void aNamedClientsVerifyHostnameAppliesWithTheDefaultBundle() throws IOException
    {
        // The CA's certificate for another host: trusted, but not the host the client dials.
        TestCertificates.writePem(dir, "elsewhere", certificates.issue("elsewhere.example",
            List.of("elsewhere.example"), List.of(), Duration.ZERO, Duration.ofDays(1), certificates.ca()));
        final String[] elsewhere = {"xio.portals[0].uri=tls://127.0.0.1:0", "xio.portals[0].ssl.bundle=server",
            "spring.ssl.bundle.pem.server.keystore.certificate=" + file("elsewhere.crt"),
            "spring.ssl.bundle.pem.server.keystore.private-key=" + file("elsewhere.key")};
        server(elsewhere, server ->
        {
            final String[] defaultBundle = {"xio.clients.kv.uri=tls://127.0.0.1:" + port(server) + "/kv",
                "xio.client.ssl.bundle=trust", "xio.client.timeout=2s",
                "spring.ssl.bundle.pem.trust.truststore.certificate=" + file("ca.crt")};
            runner(ClientApplication.class).withPropertyValues(defaultBundle).run(client ->
                assertThat(handshakeFailure(catchThrowable(() -> client.getBean(KvClient.class).get("k"))))
                    .as("the host name is checked by default").hasMessageContaining("does not name the host"));
            runner(ClientApplication.class).withPropertyValues(defaultBundle)
                .withPropertyValues("xio.clients.kv.ssl.verify-hostname=false").run(client ->
                {
                    final KvClient kv = client.getBean(KvClient.class);
                    kv.put("k", "v");
                    assertThat(kv.get("k")).isEqualTo("v");
                });
        });
    }

    @Test
    void aReloadedBundlesCertificateServesNewConnectionsAndOpenOnesGoOn() throws IOException
    {
        final String[] reloading = {"xio.portals[0].uri=tls://127.0.0.1:0", "xio.portals[0].ssl.bundle=server",
            "spring.ssl.bundle.pem.server.reload-on-update=true",
            "spring.ssl.bundle.watch.file.quiet-period=100ms",
            "spring.ssl.bundle.pem.server.keystore.certificate=" + file("server.crt"),
            "spring.ssl.bundle.pem.server.keystore.private-key=" + file("server.key")};
        server(reloading, server ->
        {
            final int port = port(server);
            runner(ClientApplication.class).withPropertyValues(pemClient(port, "ca.crt")).run(before ->
                runner(ClientApplication.class).withPropertyValues(pemClient(port, "other-ca.crt"))
                    .withPropertyValues("xio.client.timeout=2s").run(after ->
                    {
                        final KvClient open = before.getBean(KvClient.class);
                        open.put("k", "v"); // a connection made with the first certificate
                        assertThat(handshakeFailure(catchThrowable(() -> after.getBean(KvClient.class).get("k"))))
                            .as("the other CA's client does not trust the first certificate")
                            .hasMessageContaining("is not trusted");

                        replace("other-server.crt", "server.crt");
                        replace("other-server.key", "server.key");
                        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                            .until(() -> "v".equals(XioClientFactoryBean.create(KvStore.class, "kv", null,
                                after.getBeanFactory()).get("k"))); // each try a new session, so a new connection
                        assertThat(open.get("k")).as("the open connection goes on").isEqualTo("v");
                    }));
        });
    }

    /** The TLS handshake failure among {@code thrown}'s causes (it must be one). */
    private static Throwable handshakeFailure(final Throwable thrown)
    {
        Throwable cause = thrown;
        while (cause != null && !(cause instanceof TlsHandshakeException))
        {
            cause = cause.getCause();
        }
        assertThat(cause).as("a TlsHandshakeException in %s", thrown).isNotNull();
        return cause;
    }

    private void replace(final String from, final String to)
    {
        try
        {
            final Path written = Files.copy(dir.resolve(from), dir.resolve(to + ".new"),
                StandardCopyOption.REPLACE_EXISTING);
            Files.move(written, dir.resolve(to), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    @Test
    void settingsThatCannotApplyFailStartUpNamingTheirProperty()
    {
        runner(ServerApplication.class).withPropertyValues("xio.portals[0].uri=tls://127.0.0.1:0",
            "xio.portals[0].ssl.bundle=nowhere").run(server ->
            assertThat(server).getFailure().rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("xio.portals[0].ssl.bundle").hasMessageContaining("no SSL bundle named"));
        runner(ServerApplication.class).withPropertyValues(pemServer()).withPropertyValues(
            "xio.portals[0].uri=tcp://127.0.0.1:0").run(server ->
            assertThat(server).getFailure().rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("xio.portals[0].ssl.bundle").hasMessageContaining("tls://"));
        // Client certificates asked for, and nothing to check them with but the JDK's public CAs.
        runner(ServerApplication.class).withPropertyValues(pemServer()).withPropertyValues(
            "xio.portals[0].ssl.client-auth=want").run(server ->
            assertThat(server).getFailure().rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("xio.portals[0].ssl.client-auth").hasMessageContaining("no truststore"));
        runner(ClientApplication.class).withPropertyValues(pemClient(1, "ca.crt"))
            .withPropertyValues("xio.clients.kv.uri=tcp://127.0.0.1:1/kv").run(client ->
                assertThatThrownBy(() -> client.getBean(KvClient.class)).rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("xio.clients.kv.ssl.bundle"));
    }
}
