package io.xio.spring.autoconfigure.diagnostics;

import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.autoconfigure.sample.server.ServerApplication;
import io.xio.spring.service.XioPortalBindException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.net.InetAddress;
import java.net.ServerSocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** A portal whose address another process listens on fails start-up with an analysis naming property and URI. */
@ExtendWith(OutputCaptureExtension.class)
class XioPortalBindFailureAnalyzerTest
{
    @Test
    void aPortalWhosePortIsTakenFailsStartUpNamingThePropertyTheUriAndWhatToDo(final CapturedOutput output)
        throws Exception
    {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final String uri = "tcp://127.0.0.1:" + taken.getLocalPort();
            final SpringApplication application = new SpringApplication(ServerApplication.class,
                JacksonAutoConfiguration.class, XioAutoConfiguration.class);
            application.setWebApplicationType(WebApplicationType.NONE);
            final Throwable failure = catchThrowable(() -> application.run(
                "--spring.main.banner-mode=off", "--xio.contexts=1", "--xio.portals[0].uri=tcp://127.0.0.1:0",
                "--xio.portals[1].uri=" + uri));
            assertThat(failure).isNotNull();

            final FailureAnalysis analysis = new XioPortalBindFailureAnalyzer().analyze(failure);
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("xio.portals[1].uri=" + uri).contains("already in use");
            assertThat(analysis.getAction()).contains("xio.portals[1].uri").contains("stop the process")
                .contains("port 0");
            // What Boot printed in place of a stack trace: it found the analyzer in spring.factories.
            assertThat(output).contains("APPLICATION FAILED TO START").contains(analysis.getDescription());
        }
    }

    @Test
    void aBindFailureForAnotherReasonIsExplainedWithoutTheAdviceForAPortInUse()
    {
        // Such as shm:// whose file cannot be made.
        final FailureAnalysis analysis = new XioPortalBindFailureAnalyzer().analyze(new XioPortalBindException(
            "xio.portals[0].uri", "shm://kv", new IllegalStateException("no room in /dev/shm")));
        assertThat(analysis.getDescription()).contains("xio.portals[0].uri=shm://kv").contains("no room in /dev/shm");
        assertThat(analysis.getAction()).doesNotContain("port 0");
    }
}
