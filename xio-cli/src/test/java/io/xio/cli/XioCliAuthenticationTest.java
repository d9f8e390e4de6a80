package io.xio.cli;

import io.xio.cli.server.SecureInventoryServer;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The command line against a server whose sessions must authenticate: reflection and calls alike. */
@SpringBootTest(classes = SecureInventoryServer.class,
    properties = {"xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0"})
class XioCliAuthenticationTest
{
    @Autowired
    private XioServiceExporter exporter;

    @Test
    void withoutCredentialsNothingIsListedOrCalled()
    {
        final Cli list = Cli.run("list", Cli.uri(exporter));
        assertThat(list.status()).isEqualTo(Main.NOT_CONNECTED);
        assertThat(list.err()).contains("did not authenticate");
        assertThat(list.out()).isEmpty();
        assertThat(Cli.run("call", Cli.uri(exporter), "inventory", "add(int,int)", "[1, 2]").status())
            .isEqualTo(Main.NOT_CONNECTED);
    }

    @Test
    void wrongCredentialsAreRefused()
    {
        final Cli list = Cli.run("--user", SecureInventoryServer.USER, "--password", "guessed", "list",
            Cli.uri(exporter));
        assertThat(list.status()).isEqualTo(Main.NOT_CONNECTED);
        assertThat(list.err()).doesNotContain("guessed");
    }

    @Test
    void withCredentialsTheServiceIsListedAndCalled()
    {
        final Cli list = Cli.run("--user", SecureInventoryServer.USER, "--password", SecureInventoryServer.PASSWORD,
            "list", Cli.uri(exporter));
        assertThat(list.status()).as(list.err()).isZero();
        assertThat(list.json().get(0).get("name").asString()).isEqualTo("inventory");

        // The password from the environment, as a script would pass it.
        final Cli add = Cli.run(Map.of("XIO_PASSWORD", SecureInventoryServer.PASSWORD), "--user",
            SecureInventoryServer.USER, "call", Cli.uri(exporter), "inventory", "add(int,int)", "[1, 2]");
        assertThat(add.status()).as(add.err()).isZero();
        assertThat(add.out().trim()).isEqualTo("3");
    }
}
