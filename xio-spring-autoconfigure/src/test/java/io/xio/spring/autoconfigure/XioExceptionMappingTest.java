package io.xio.spring.autoconfigure;

import io.xio.engine.XioEngine;
import io.xio.spring.autoconfigure.client.XioClientFactoryBean;
import io.xio.spring.client.XioRemoteException;
import io.xio.spring.error.XioErrorBody;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.autoconfigure.sample.errors.api.AccountException;
import io.xio.spring.autoconfigure.sample.errors.api.Accounts;
import io.xio.spring.autoconfigure.sample.errors.api.ClosedAccountException;
import io.xio.spring.autoconfigure.sample.errors.api.Failures;
import io.xio.spring.autoconfigure.sample.errors.client.AccountsClient;
import io.xio.spring.autoconfigure.sample.errors.client.AccountsClientApplication;
import io.xio.spring.autoconfigure.sample.errors.server.AccountsServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A service's exceptions on their way to its callers, over tcp: {@code @XioExceptionHandler} methods on the
 * service and on {@code @XioServiceAdvice} beans map them to a code and a message (the nearest handler of the
 * service first, then the advices in order), and the client rebuilds only the types on the call's allow-list,
 * never constructing or initializing another.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class XioExceptionMappingTest
{
    private static void withClient(final ContextConsumer<AssertableApplicationContext> test,
        final String... clientProperties)
    {
        // The server discloses every failure, as for development: these tests are about what the client rebuilds
        // (XioErrorDisclosureTest shows what the default hides).
        runner(AccountsServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0",
            "xio.server.error.include-message=always", "xio.server.error.include-exception=true")
            .run(server ->
            {
                assertThat(server).hasNotFailed();
                final int port = server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
                runner(AccountsClientApplication.class)
                    .withPropertyValues("xio.clients.accounts.uri=tcp://127.0.0.1:" + port + "/accounts")
                    .withPropertyValues(clientProperties).run(test);
            });
    }

    /** Asserts the call fails with an {@link XioRemoteException} and returns it. */
    private static XioRemoteException remote(final ThrowingCallable call)
    {
        final Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(call);
        assertThat(thrown).isExactlyInstanceOf(XioRemoteException.class);
        return (XioRemoteException)thrown;
    }

    /** The {@link XioRemoteException} a rebuilt exception carries to say it came from the server. */
    private static XioRemoteException origin(final Throwable rebuilt)
    {
        assertThat(rebuilt.getCause()).isInstanceOf(XioRemoteException.class);
        return (XioRemoteException)rebuilt.getCause();
    }

    @Test
    void theServicesOwnHandlersMapTheNearestTypeAndComeBeforeAnyAdvice()
    {
        withClient(client ->
        {
            final Accounts accounts = client.getBean(AccountsClient.class);
            final XioRemoteException ledger = remote(() -> accounts.fail("ledger"));
            assertThat(ledger.code()).isEqualTo(XioErrorCode.FAILED_PRECONDITION);
            assertThat(ledger.remoteMessage()).isEqualTo("ledger: ledger broken");
            assertThat(ledger.remoteType()).isEqualTo(Failures.LedgerException.class.getName());

            final XioRemoteException overdrawn = remote(() -> accounts.fail("overdrawn"));
            assertThat(overdrawn.code()).isEqualTo(XioErrorCode.RESOURCE_EXHAUSTED);
            assertThat(overdrawn.remoteMessage()).isEqualTo("overdrawn by 5");

            // AccountsAdvice handles FrozenException exactly, but the service's handler for its supertype wins.
            final XioRemoteException frozen = remote(() -> accounts.fail("frozen"));
            assertThat(frozen.code()).isEqualTo(XioErrorCode.FAILED_PRECONDITION);
            assertThat(frozen.remoteMessage()).isEqualTo("ledger: since monday");

            // Mapped, and of a type the client rebuilds: the type stays, message and code are the handler's.
            assertThatThrownBy(() -> accounts.fail("number")).isExactlyInstanceOf(NumberFormatException.class)
                .hasMessage("not a number").satisfies(ex ->
                    assertThat(origin(ex).code()).isEqualTo(XioErrorCode.INVALID_ARGUMENT));

            // A handler that rethrows declines; one that throws another exception answers with that one.
            final XioRemoteException declined = remote(() -> accounts.fail("declined"));
            assertThat(declined.code()).isEqualTo(XioErrorCode.UNKNOWN);
            assertThat(declined.remoteMessage()).isEqualTo("no handler wants me");
            assertThatThrownBy(() -> accounts.fail("translated")).isExactlyInstanceOf(IllegalStateException.class)
                .hasMessage("translated: turned into another")
                .satisfies(ex -> assertThat(origin(ex).code()).isEqualTo(XioErrorCode.UNKNOWN));

            // A future that fails is mapped the same way.
            assertThatThrownBy(() -> accounts.failAsync("overdrawn").get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isExactlyInstanceOf(XioRemoteException.class)
                .satisfies(ex -> assertThat(((XioRemoteException)ex).code())
                    .isEqualTo(XioErrorCode.RESOURCE_EXHAUSTED));
        });
    }

    @Test
    void advicesApplyInTheirOrderAndOnlyToTheServicesTheyAdvise()
    {
        withClient(client ->
        {
            final Accounts accounts = client.getBean(AccountsClient.class);
            // Both advices handle it: GlobalAdvice is @Order(1).
            final XioRemoteException audit = remote(() -> accounts.fail("audit"));
            assertThat(audit.code()).isEqualTo(XioErrorCode.UNAVAILABLE);
            assertThat(audit.remoteMessage()).isEqualTo("global: audit failed");
            // The first advice with any handler for the type wins, though a later one has a nearer handler.
            assertThat(remote(() -> accounts.fail("deep-audit")).remoteMessage())
                .isEqualTo("global: deep audit failed");
            // Only AccountsAdvice (assignableTypes = Accounts.class) handles it; the client rebuilds the JDK type.
            assertThatThrownBy(() -> accounts.fail("unsupported"))
                .isExactlyInstanceOf(UnsupportedOperationException.class).hasMessage("advised: not here")
                .satisfies(ex -> assertThat(origin(ex).code()).isEqualTo(XioErrorCode.UNIMPLEMENTED));
            // OtherAdvice (services = "other") maps every RuntimeException, but not this service's.
            final XioRemoteException unmapped = remote(() -> accounts.fail("constructed"));
            assertThat(unmapped.code()).isEqualTo(XioErrorCode.UNKNOWN);
            assertThat(unmapped.remoteMessage()).isEqualTo("made on the server");
        });
    }

    @Test
    void theClientRebuildsOnlyDeclaredJdkAndConfiguredTypesAndConstructsNothingElse()
    {
        withClient(client ->
        {
            final Accounts accounts = client.getBean(AccountsClient.class);
            final int made = Failures.Constructed.MADE.get();
            final XioRemoteException constructed = remote(() -> accounts.fail("constructed"));
            assertThat(Failures.Constructed.MADE.get()).isEqualTo(made + 1); // by the server, not again here
            assertThat(constructed.remoteType()).isEqualTo(Failures.Constructed.class.getName());
            assertThat(constructed).hasMessageContaining(Failures.Constructed.class.getName())
                .hasMessageContaining("made on the server");

            assertThatThrownBy(() -> accounts.fail("illegal-argument"))
                .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("bad argument")
                .satisfies(ex -> assertThat(origin(ex).remoteType()).isEqualTo(
                    IllegalArgumentException.class.getName()));
            assertThatThrownBy(() -> accounts.open("bob")).isExactlyInstanceOf(AccountException.class)
                .hasMessage("no account bob").satisfies(ex -> assertThat(origin(ex).code())
                    .isEqualTo(XioErrorCode.UNKNOWN));
            // A subtype of the declared type comes back as the declared type; the subtype is not made here.
            final int closedMade = ClosedAccountException.MADE.get();
            assertThatThrownBy(() -> accounts.open("closed")).isExactlyInstanceOf(AccountException.class)
                .hasMessage("closed is closed").satisfies(ex -> assertThat(origin(ex).remoteType())
                    .isEqualTo(ClosedAccountException.class.getName()));
            assertThat(ClosedAccountException.MADE.get()).isEqualTo(closedMade + 1);

            // Not configured here.
            assertThat(remote(() -> accounts.fail("globally-allowed")).remoteType())
                .isEqualTo(Failures.GloballyAllowed.class.getName());
            assertThat(remote(() -> accounts.fail("client-allowed")).remoteType())
                .isEqualTo(Failures.ClientAllowed.class.getName());
        });
    }

    @Test
    void configuredTypesAreRebuiltGloballyAndPerClient()
    {
        withClient(client ->
        {
            final Accounts accounts = client.getBean(AccountsClient.class);
            assertThatThrownBy(() -> accounts.fail("globally-allowed"))
                .isExactlyInstanceOf(Failures.GloballyAllowed.class).hasMessage("allowed for every client");
            assertThatThrownBy(() -> accounts.fail("client-allowed"))
                .isExactlyInstanceOf(Failures.ClientAllowed.class).hasMessage("allowed for one client");
            assertThat(remote(() -> accounts.fail("constructed")).code()).isEqualTo(XioErrorCode.UNKNOWN);
        }, "xio.client.allowed-exceptions=" + Failures.GloballyAllowed.class.getName(),
            "xio.clients.accounts.allowed-exceptions=" + Failures.ClientAllowed.class.getName());
    }

    @Test
    void aConfiguredTypeThatIsNoExceptionFailsStartUp()
    {
        runner(AccountsClientApplication.class).withPropertyValues("xio.clients.accounts.uri=tcp://127.0.0.1:1/a",
            "xio.client.allowed-exceptions=java.lang.OutOfMemoryError").run(client ->
            {
                assertThat(client).hasFailed();
                assertThat(client.getStartupFailure()).rootCause().hasMessageContaining("OutOfMemoryError")
                    .hasMessageContaining("is not an exception");
            });
    }

    @Test
    void aTypeAPeerNamesIsNeverInitializedUnlessAllowed()
    {
        runner(AccountsServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0")
            .run(server ->
            {
                // A peer that names a class of its choosing, with a code.
                server.getBean(XioEngine.class).register("raw", request ->
                {
                    request.message().close();
                    request.fail(Failures.NEVER_LOADED, "from raw\nNOT_FOUND");
                });
                final int port = server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
                runner(AccountsClientApplication.class)
                    .withPropertyValues("xio.clients.accounts.uri=tcp://127.0.0.1:" + port + "/accounts")
                    .run(client ->
                    {
                        final Accounts raw = XioClientFactoryBean.create(Accounts.class, null,
                            "tcp://127.0.0.1:" + port + "/raw", client.getBeanFactory());
                        final XioRemoteException failed = remote(() -> raw.fail("x"));
                        assertThat(failed.remoteType()).isEqualTo(Failures.NEVER_LOADED);
                        assertThat(failed.code()).isEqualTo(XioErrorCode.NOT_FOUND);
                        assertThat(failed.remoteMessage()).isEqualTo("from raw");
                        // open declares an exception: the named class is looked at, and still not initialized.
                        assertThat(remote(() -> raw.open("x")).remoteType()).isEqualTo(Failures.NEVER_LOADED);
                        assertThat(Failures.NEVER_LOADED_INITIALIZED).hasValue(0);
                    });
            });
    }

    @Test
    void aHugeMessageIsCutToItsBoundAndStillArrives()
    {
        withClient(client ->
        {
            final Accounts accounts = client.getBean(AccountsClient.class);
            // 200,000 bytes of UTF-8, beyond a 64 KiB header limit: cut at a character, 2 bytes each.
            assertThatThrownBy(() -> accounts.fail("huge")).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("\u00e9".repeat(XioErrorBody.MAX_MESSAGE_BYTES / 2));
        });
    }
}
