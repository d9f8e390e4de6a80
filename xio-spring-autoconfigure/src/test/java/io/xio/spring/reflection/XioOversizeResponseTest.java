package io.xio.spring.reflection;

import io.xio.spring.autoconfigure.reflection.XioReflectionAutoConfiguration;
import io.xio.annotation.XioService;
import io.xio.engine.RemoteException;
import io.xio.spring.autoconfigure.XioAutoConfiguration;
import io.xio.spring.observation.XioCallOutcome;
import io.xio.spring.observation.XioInstrumentation;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A result larger than the caller's limits: the caller is told no more than that (not the server's limits or
 * classes, whatever the disclosure), and the server records the call as failed.
 */
class XioOversizeResponseTest
{
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, XioAutoConfiguration.class,
            XioReflectionAutoConfiguration.class))
        .withUserConfiguration(Big.class)
        .withPropertyValues("xio.contexts=1", "xio.portals[0].uri=tcp://127.0.0.1:0",
            "xio.server.error.include-message=never");

    /** Answers with more than a header takes (64 KiB by default). */
    public interface Blob
    {
        String blob();
    }

    @XioService("blob")
    static class BlobService implements Blob
    {
        @Override
        public String blob()
        {
            return "x".repeat(100_000);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Big
    {
        @Bean
        BlobService blobService()
        {
            return new BlobService();
        }

        @Bean
        List<XioCallOutcome> outcomes()
        {
            return new CopyOnWriteArrayList<>();
        }

        @Bean
        XioInstrumentation recordingOutcomes(final List<XioCallOutcome> outcomes)
        {
            return call -> new XioInstrumentation.CallRecorder()
            {
                @Override
                public Object start(final io.xio.engine.Metadata metadata)
                {
                    return null;
                }

                @Override
                public void stop(final Object started, final long startNanos, final XioCallOutcome outcome,
                    final Throwable failure)
                {
                    outcomes.add(outcome);
                }
            };
        }
    }

    @Test
    void anOversizeResultIsAGenericErrorToTheCallerAndAFailureToTheServer()
    {
        runner.run(context ->
        {
            final Throwable failure = catchThrowable(() -> XioReflectionTest.call(context, "blob", "blob()", "[]"));
            assertThat(failure).hasCauseInstanceOf(RemoteException.class);
            final RemoteException remote = (RemoteException)failure.getCause();
            assertThat(remote.remoteMessage()).doesNotContain("Limits", "io.xio", "Exception", "bytes");
            assertThat(remote.remoteType()).doesNotContain("io.xio", "Exception");
            assertThat(remote.remoteMessage()).endsWith("\nRESOURCE_EXHAUSTED");
            @SuppressWarnings("unchecked")
            final List<XioCallOutcome> outcomes = context.getBean("outcomes", List.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> !outcomes.isEmpty());
            assertThat(outcomes).containsExactly(XioCallOutcome.ERROR);
        });
    }
}
