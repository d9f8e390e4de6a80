package io.xio.spring.autoconfigure.diagnostics;

import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.sample.server.ServerApplication;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * An shm portal whose name a live portal holds, and a local one whose name is bound in this JVM, are "in use" as a
 * taken port is, and analysed as such.
 */
class XioPortalNameInUseTest
{
    @Test
    void anShmPortalWhoseNameIsTakenIsAnalysedAsInUse()
    {
        final String uri = "shm://xio-review-in-use-" + UUID.randomUUID();
        final FailureAnalysis analysis = analysisOfTwoPortalsAt(uri);
        assertThat(analysis.getDescription()).contains("=" + uri).contains("its address is already in use");
        assertThat(analysis.getAction()).doesNotContain("must be one this host can listen on")
            .contains("another name").doesNotContain("port 0");
    }

    @Test
    void aLocalPortalWhoseNameIsBoundInThisJvmIsAnalysedAsInUse()
    {
        final String uri = "local://xio-review-in-use-" + UUID.randomUUID();
        final FailureAnalysis analysis = analysisOfTwoPortalsAt(uri);
        assertThat(analysis.getDescription()).contains("xio.portals[0].uri=" + uri)
            .contains("its address is already in use");
        assertThat(analysis.getAction()).contains("another name");
    }

    /** The failure analysis of an application that binds two portals at {@code uri}. */
    private static FailureAnalysis analysisOfTwoPortalsAt(final String uri)
    {
        final SpringApplication application = new SpringApplication(ServerApplication.class,
            JacksonAutoConfiguration.class, XioAutoConfiguration.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        final Throwable failure = catchThrowable(() -> application.run("--spring.main.banner-mode=off",
            "--xio.contexts=1", "--xio.portals[0].uri=" + uri, "--xio.portals[1].uri=" + uri));
        assertThat(failure).isNotNull();
        final FailureAnalysis analysis = new XioPortalBindFailureAnalyzer().analyze(failure);
        assertThat(analysis).isNotNull();
        return analysis;
    }
}
