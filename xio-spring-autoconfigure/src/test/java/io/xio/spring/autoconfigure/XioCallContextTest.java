package io.xio.spring.autoconfigure;

import io.xio.engine.XioTimeoutException;
import io.xio.spring.client.XioRemoteException;
import io.xio.spring.autoconfigure.sample.hops.caller.CallerApplication;
import io.xio.spring.autoconfigure.sample.hops.caller.FirstHopClient;
import io.xio.spring.autoconfigure.sample.hops.first.FirstHopApplication;
import io.xio.spring.autoconfigure.sample.hops.first.FirstHopService;
import io.xio.spring.autoconfigure.sample.hops.last.LastHopApplication;
import io.xio.spring.autoconfigure.sample.hops.last.LastHopService;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A chain of calls, caller → first hop → last hop, each its own application over tcp: the caller's deadline
 * reaches every hop (a call made while serving inherits the time left, however long its own timeout), metadata
 * added by a client interceptor reaches the server and is passed on by another, and server interceptors run in
 * their order, for the services they apply to, and may refuse a call.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioCallContextTest
{
    private static int port(final AssertableApplicationContext context)
    {
        return context.getBean(XioServiceExporter.class).portals().get(0).uri().port();
    }

    /** Runs {@code test} on the caller, its call to the first hop limited to {@code timeout}. */
    private static void chain(final String timeout, final ContextConsumer<AssertableApplicationContext> test)
    {
        runner(LastHopApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0").run(last ->
            runner(FirstHopApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
                "xio.clients.last.uri=tcp://127.0.0.1:" + port(last) + "/last", "xio.clients.last.timeout=30s")
                .run(first -> runner(CallerApplication.class).withPropertyValues(
                    "xio.clients.first.uri=tcp://127.0.0.1:" + port(first) + "/first",
                    "xio.clients.first.timeout=" + timeout).run(test)));
    }

    @Test
    void theCallersDeadlineAndTenantReachTheLastHopAndInterceptorsRunInTheirOrder()
    {
        FirstHopApplication.SEEN.clear();
        chain("3s", caller ->
        {
            final String[] answer = caller.getBean(FirstHopClient.class).first("x").split(" ");
            final long firstLeft = Long.parseLong(answer[0]);
            final long lastLeft = Long.parseLong(answer[2]);
            assertThat(firstLeft).as("the first hop saw the caller's 3 s").isBetween(1_000L, 3_000L);
            assertThat(lastLeft).as("the last hop saw what was left of them, not its client's 30 s")
                .isBetween(1L, firstLeft);
            assertThat(answer[1]).isEqualTo("x");
            assertThat(answer[3]).as("the tenant, passed on by the first hop's client interceptor").isEqualTo("acme");
            assertThat(FirstHopApplication.SEEN).containsExactly("outer first", "inner first");
        });
    }

    @Test
    void aServerInterceptorRefusesACallWithoutRunningIt()
    {
        FirstHopApplication.SEEN.clear();
        chain("3s", caller ->
        {
            final int before = LastHopService.CALLS.get();
            assertThatThrownBy(() -> caller.getBean(FirstHopClient.class).first("anonymous"))
                .isExactlyInstanceOf(SecurityException.class).hasMessageContaining("no tenant") // declared
                .satisfies(ex -> assertThat(((XioRemoteException)ex.getCause()).remoteType())
                    .isEqualTo(SecurityException.class.getName()));
            assertThat(FirstHopApplication.SEEN).as("refused by the outer one").containsExactly("outer first");
            assertThat(LastHopService.CALLS).hasValue(before);
        });
    }

    @Test
    void anInterceptorMayNotSendOneCallTwice()
    {
        chain("3s", caller ->
        {
            final int before = LastHopService.CALLS.get();
            assertThatThrownBy(() -> caller.getBean(FirstHopClient.class).first("twice"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("proceeded twice");
            assertThat(LastHopService.CALLS).as("the first send ran once").hasValue(before + 1);
        });
    }

    @Test
    void aCallMadeAfterTheDeadlineOfTheCallBeingServedIsNotSent()
    {
        FirstHopService.LATE.set(null);
        chain("300ms", caller ->
        {
            final int before = LastHopService.CALLS.get();
            assertThatThrownBy(() -> caller.getBean(FirstHopClient.class).afterTheDeadline("late"))
                .isInstanceOf(XioTimeoutException.class);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(FirstHopService.LATE.get())
                .isInstanceOf(XioTimeoutException.class).hasMessageContaining("not sent"));
            assertThat(LastHopService.CALLS).hasValue(before);
        });
    }
}
