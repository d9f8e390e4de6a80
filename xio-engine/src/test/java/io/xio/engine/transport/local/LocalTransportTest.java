package io.xio.engine.transport.local;

import io.xio.engine.TestEngines;
import io.xio.engine.XioEngine;
import io.xio.engine.XioException;
import io.xio.engine.transport.AddressInUseException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A local portal name is one per JVM: a second portal of it is refused as an address in use. */
class LocalTransportTest
{
    private final TestEngines engines = new TestEngines();

    @AfterEach
    void close()
    {
        engines.close();
    }

    @Test
    void aSecondPortalOfTheSameNameIsInUse()
    {
        final String uri = "local://in-use-" + UUID.randomUUID();
        final XioEngine first = engines.start("first");
        final XioEngine second = engines.start("second");
        first.bind(uri);
        assertThatThrownBy(() -> second.bind(uri)).isInstanceOf(XioException.class)
            .hasMessageContaining("already bound in this JVM").hasRootCauseInstanceOf(AddressInUseException.class);
    }
}
