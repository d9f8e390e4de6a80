package io.xio.spring.autoconfigure;

import io.xio.engine.Portal;
import io.xio.engine.XioUri;
import io.xio.spring.autoconfigure.service.XioPortInfoListener;
import io.xio.spring.service.XioPortalsExportedEvent;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.springframework.context.support.GenericApplicationContext;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/**
 * Review: a child context's environment merges its parent's property sources by reference, so the child's
 * listener finds the parent's "xio.ports" source and clears it: the parent's local.xio.port becomes the child's.
 */
class XioPortInfoListenerParentChildTest
{
    @Test
    void aChildContextsPortsDoNotReplaceTheParentsLocalXioPort()
    {
        try (GenericApplicationContext parent = new GenericApplicationContext())
        {
            parent.registerBean(XioPortInfoListener.class,
                () -> new XioPortInfoListener(parent, parent.getEnvironment()));
            parent.refresh();
            parent.publishEvent(new XioPortalsExportedEvent(mock(XioServiceExporter.class), parent,
                List.of(portal(7000))));
            assertThat(parent.getEnvironment().getProperty("local.xio.port")).isEqualTo("7000");

            try (GenericApplicationContext child = new GenericApplicationContext())
            {
                child.setParent(parent); // merges the parent's environment, as SpringApplicationBuilder.child does
                child.registerBean(XioPortInfoListener.class,
                    () -> new XioPortInfoListener(child, child.getEnvironment()));
                child.refresh();
                child.publishEvent(new XioPortalsExportedEvent(mock(XioServiceExporter.class), child,
                    List.of(portal(8000))));

                assertThat(child.getEnvironment().getProperty("local.xio.port")).isEqualTo("8000");
                assertThat(parent.getEnvironment().getProperty("local.xio.port"))
                    .as("the parent's own portal is still at 7000").isEqualTo("7000");
            }
        }
    }

    private static Portal portal(final int port)
    {
        final Portal portal = mock(Portal.class);
        when(portal.uri()).thenReturn(XioUri.parse("tcp://127.0.0.1:" + port));
        return portal;
    }
}
