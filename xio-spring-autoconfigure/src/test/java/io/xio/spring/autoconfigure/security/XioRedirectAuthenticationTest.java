package io.xio.spring.autoconfigure.security;

import io.xio.engine.Portal;
import io.xio.engine.SessionRejectedException;
import io.xio.engine.SetupDecision;
import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.sample.secure.server.TradesServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A redirecting first portal authenticates before it redirects: a peer without credentials learns nothing of the
 * other portals, and one that claims it was redirected already (the hops are the client's to say) is
 * authenticated all the same.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioRedirectAuthenticationTest
{
    private static final String[] TWO_PORTALS = {"xio.portals[0].uri=tcp://127.0.0.1:0",
        "xio.portals[1].uri=tcp://127.0.0.1:0", "xio.server.redirect=round-robin"};

    @Test
    void aClientWithoutCredentialsIsRefusedByTheRedirectingPortal()
    {
        XioSecurityTest.runner(TradesServerApplication.class).withPropertyValues(TWO_PORTALS).run(server ->
        {
            assertThat(server).hasNotFailed();
            final Portal first = server.getBean(XioServiceExporter.class).portals().get(0);
            try (XioEngine client = XioEngine.builder().contexts(1).build())
            {
                assertAuthenticationFailure(catchThrowable(() ->
                    client.connect("tcp://127.0.0.1:" + first.uri().port() + "/trades").close()));
            }
        });
    }

    @Test
    void aClientThatClaimsItWasRedirectedAlreadyIsAuthenticatedAllTheSame()
    {
        XioSecurityTest.runner(TradesServerApplication.class).withPropertyValues(TWO_PORTALS).run(server ->
        {
            assertThat(server).hasNotFailed();
            final Portal first = server.getBean(XioServiceExporter.class).portals().get(0);
            // The attacker's own portal redirects every set-up to the server's first portal: the client arrives
            // there with one hop, as if the server had redirected it.
            try (XioEngine attacker = XioEngine.builder().contexts(1).build();
                XioEngine client = XioEngine.builder().contexts(1).build())
            {
                final Portal forging = attacker.bind("tcp://127.0.0.1:0",
                    request -> SetupDecision.redirect(List.of(first.uri().withResource(request.resource()))));
                assertAuthenticationFailure(catchThrowable(() ->
                    client.connect("tcp://127.0.0.1:" + forging.uri().port() + "/trades").close()));
            }
        });
    }

    static void assertAuthenticationFailure(final Throwable thrown)
    {
        Throwable cause = thrown;
        while (cause != null && !(cause instanceof SessionRejectedException))
        {
            cause = cause.getCause();
        }
        assertThat(cause).as("a SessionRejectedException in %s", thrown).isNotNull();
        assertThat(((SessionRejectedException)cause).isAuthenticationFailure()).as("%s", cause).isTrue();
    }
}
