package io.xio.cli;

import io.xio.cli.server.InventoryServer;
import io.xio.spring.autoconfigure.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review 17: a --timeout that Duration takes but whose milliseconds overflow a long: {@code Main.run} throws
 * ArithmeticException instead of answering with an exit status (the launcher prints a stack trace, exit 1).
 */
@SpringBootTest(classes = InventoryServer.class,
    properties = {"xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0"})
class XioCliExitStatusTest
{
    @Autowired
    private XioServiceExporter exporter;

    @Test
    void aHugeTimeoutIsAUsageErrorNotAnException()
    {
        final Cli list = Cli.run("--timeout", "9223372036854775s", "list", Cli.uri(exporter));
        assertThat(list.status()).as(list.err()).isIn(Main.OK, Main.USAGE);
    }
}
