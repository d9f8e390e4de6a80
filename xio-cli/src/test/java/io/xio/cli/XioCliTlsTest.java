package io.xio.cli;

import io.xio.cli.server.InventoryServer;
import io.xio.engine.transport.tls.TestCertificates;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The command line against a tls:// portal whose certificate a test CA issued. */
class XioCliTlsTest
{
    @TempDir
    static Path dir;

    private static ConfigurableApplicationContext server;
    private static Path truststore;

    @BeforeAll
    static void startServer() throws Exception
    {
        final TestCertificates certificates = TestCertificates.create();
        final Path serverKeys = TestCertificates.writeKeyStore(dir, "server", "PKCS12", certificates.server());
        truststore = TestCertificates.writeTrustStore(dir, "trust", "PKCS12", certificates.ca().certificate());
        server = new SpringApplicationBuilder(InventoryServer.class)
            .properties("xio.contexts=1", "xio.portals[0].uri=tls://127.0.0.1:0", "xio.portals[0].ssl.bundle=server",
                "spring.ssl.bundle.jks.server.keystore.location=" + serverKeys.toUri(),
                "spring.ssl.bundle.jks.server.keystore.type=PKCS12",
                "spring.ssl.bundle.jks.server.keystore.password=" + TestCertificates.PASSWORD,
                "spring.main.banner-mode=off")
            .run();
    }

    @AfterAll
    static void stopServer()
    {
        server.close();
    }

    private static String uri()
    {
        return "tls://127.0.0.1:" + server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
    }

    @Test
    void aTruststoreThatTrustsTheServersCaConnects()
    {
        final Cli list = Cli.run("--truststore", truststore.toString(), "--truststore-password",
            TestCertificates.PASSWORD, "list", uri());
        assertThat(list.status()).as(list.err()).isZero();
        assertThat(list.json().get(0).get("name").asString()).isEqualTo("inventory");
    }

    @Test
    void withoutItTheServerIsNotTrusted()
    {
        final Cli list = Cli.run("--timeout", "3s", "list", uri());
        assertThat(list.status()).isEqualTo(Main.NOT_CONNECTED);
        assertThat(list.out()).isEmpty();
    }

    @Test
    void aTruststoreIsForTlsOnly()
    {
        final Cli list = Cli.run("--truststore", truststore.toString(), "list", "tcp://127.0.0.1:1");
        assertThat(list.status()).isEqualTo(Main.USAGE);
        assertThat(list.err()).contains("--truststore is for tls://");
    }
}
