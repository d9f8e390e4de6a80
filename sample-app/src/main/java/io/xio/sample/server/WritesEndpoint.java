package io.xio.sample.server;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * {@code /actuator/writes}: the server's {@link WriteLedger}, how many write ids it executed and how many more than
 * once, in all and per client.
 */
@Component
@Endpoint(id = "writes")
@Profile("!client")
public class WritesEndpoint
{
    private final WriteLedger ledger;

    public WritesEndpoint(final WriteLedger ledger)
    {
        this.ledger = ledger;
    }

    @ReadOperation
    public WriteLedger.Counts writes()
    {
        return ledger.counts();
    }
}
