package io.xio.spring.autoconfigure;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.integration.Slf4jThreadLocalAccessor;
import io.xio.annotation.XioService;
import io.xio.spring.autoconfigure.client.XioClientFactoryBean;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.slf4j.MDC;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Service methods run on Spring Boot's task executor or the Executor bean {@code xio.server.executor} names, in the
 * context (registered with Micrometer's context-propagation) the call arrived with on the engine thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioServiceExecutorTest
{
    /** Set by the engine-level interceptor on the thread a call arrives on. */
    static final ThreadLocal<String> ARRIVED_WITH = new ThreadLocal<>();
    private static final String LOCAL_KEY = "xio-test.arrived-with";
    private static final String MDC_KEY = "xio-test-caller";

    /** What the probe answers from. */
    public interface Probe
    {
        String probe();
    }

    /** Answers with what its thread looked like while it ran. */
    @XioService("probe")
    public static class ProbeService implements Probe
    {
        volatile Thread thread;

        @Override
        public String probe()
        {
            thread = Thread.currentThread();
            return ARRIVED_WITH.get() + "/" + MDC.get(MDC_KEY);
        }
    }

    @BeforeAll
    static void registerContext()
    {
        ContextRegistry.getInstance().registerThreadLocalAccessor(LOCAL_KEY, ARRIVED_WITH);
        ContextRegistry.getInstance().registerThreadLocalAccessor(new Slf4jThreadLocalAccessor(MDC_KEY));
    }

    @AfterAll
    static void unregisterContext()
    {
        ContextRegistry.getInstance().removeThreadLocalAccessor(LOCAL_KEY);
        ContextRegistry.getInstance().removeThreadLocalAccessor(Slf4jThreadLocalAccessor.KEY);
    }

    private static ApplicationContextRunner server()
    {
        return runner(Object.class).withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
            .withBean(ProbeService.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0");
    }

    /** Calls the probe once and hands the server context and the answer to {@code check}. */
    private static void probe(final ApplicationContextRunner server, final ProbeCheck check)
    {
        server.run(context ->
        {
            assertThat(context).hasNotFailed();
            final String uri = "tcp://127.0.0.1:" +
                context.getBean(XioServiceExporter.class).portals().get(0).uri().port() + "/probe";
            runner(Object.class).run(client ->
            {
                final String answer = XioClientFactoryBean.create(Probe.class, "probe", uri, client).probe();
                check.accept(context, context.getBean(ProbeService.class).thread, answer);
            });
        });
    }

    /** What a test checks of a probed call. */
    @FunctionalInterface
    interface ProbeCheck
    {
        void accept(AssertableApplicationContext server, Thread ranOn, String answer);
    }

    @Test
    void serviceMethodsRunOnBootsApplicationTaskExecutor()
    {
        probe(server(), (context, ranOn, answer) -> assertThat(ranOn.getName())
            .startsWith(context.getEnvironment().getProperty("spring.task.execution.thread-name-prefix", "task-")));
    }

    @Test
    void serviceMethodsRunOnTheExecutorBeanXioServerExecutorNames()
    {
        probe(server().withBean("probeExecutor", Executor.class, () -> new SimpleAsyncTaskExecutor("probe-worker-"))
            .withPropertyValues("xio.server.executor=probeExecutor"),
            (context, ranOn, answer) -> assertThat(ranOn.getName()).startsWith("probe-worker-"));
    }

    @Test
    void anExecutorNameThatNamesNoExecutorBeanFailsStartUpNamingTheProperty()
    {
        server().withPropertyValues("xio.server.executor=nope").run(context ->
            assertThat(context).getFailure().rootCause()
                .isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class,
                    ex -> assertThat(ex.getName()).isEqualTo("xio.server.executor")));
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21) // virtual threads
    void withVirtualThreadsEnabledServiceMethodsRunOnVirtualThreads()
    {
        probe(server().withPropertyValues("spring.threads.virtual.enabled=true"), (context, ranOn, answer) ->
        {
            try
            {
                assertThat(Thread.class.getMethod("isVirtual").invoke(ranOn)).isEqualTo(true);
            }
            catch (final ReflectiveOperationException ex)
            {
                throw new AssertionError(ex);
            }
        });
    }

    @Test
    void theContextACallArrivesWithOnTheEngineThreadIsCurrentInTheServiceMethod()
    {
        final XioEngineCustomizer arriving = builder -> builder.serverInterceptor((request, next) ->
        {
            ARRIVED_WITH.set("engine-interceptor");
            MDC.put(MDC_KEY, "caller-1");
            try
            {
                next.onRequest(request);
            }
            finally
            {
                ARRIVED_WITH.remove();
                MDC.remove(MDC_KEY);
            }
        });
        probe(server().withBean(XioEngineCustomizer.class, () -> arriving), (context, ranOn, answer) ->
        {
            assertThat(ranOn.getName()).doesNotStartWith("xio"); // a worker, not the engine's context thread
            assertThat(answer).isEqualTo("engine-interceptor/caller-1");
        });
    }
}
