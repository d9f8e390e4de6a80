package io.xio.spring.autoconfigure;

import io.xio.spring.client.XioRemoteException;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.error.XioErrorDisclosure;
import io.xio.spring.autoconfigure.sample.errors.api.AccountException;
import io.xio.spring.autoconfigure.sample.errors.api.Accounts;
import io.xio.spring.autoconfigure.sample.errors.api.Failures;
import io.xio.spring.autoconfigure.sample.errors.client.AccountsClient;
import io.xio.spring.autoconfigure.sample.errors.client.AccountsClientApplication;
import io.xio.spring.autoconfigure.sample.errors.server.AccountsServerApplication;
import io.xio.spring.service.XioServiceExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.xio.spring.autoconfigure.XioAutoConfigurationEndToEndTest.runner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * What a caller learns of a service's failure (xio.server.error.*): by default only what the service chose to
 * expose (declared exceptions, exception handlers' answers); anything else arrives as a generic message with an
 * error id that the server's log line, with the stack trace, also carries. Development settings disclose the
 * message, the class name, or both; stack traces never travel.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class XioErrorDisclosureTest
{
    private static final Pattern ERROR_ID = Pattern.compile("error id ([0-9a-f]{10})");

    private static void withClient(final Consumer<Accounts> test, final String... serverProperties)
    {
        runner(AccountsServerApplication.class).withPropertyValues("xio.portals[0].uri=tcp://127.0.0.1:0")
            .withPropertyValues(serverProperties).run(server ->
            {
                assertThat(server).hasNotFailed();
                final int port = server.getBean(XioServiceExporter.class).portals().get(0).uri().port();
                runner(AccountsClientApplication.class)
                    .withPropertyValues("xio.clients.accounts.uri=tcp://127.0.0.1:" + port + "/accounts")
                    .run(client -> test.accept(client.getBean(AccountsClient.class)));
            });
    }

    private static XioRemoteException remote(final Throwable thrown)
    {
        assertThat(thrown).isExactlyInstanceOf(XioRemoteException.class);
        return (XioRemoteException)thrown;
    }

    @Test
    void byDefaultAnUndeclaredExceptionShowsOnlyAnErrorIdThatTheServersLogLineCarries(final CapturedOutput output)
    {
        withClient(accounts ->
        {
            final XioRemoteException hidden = remote(catchThrowable(() -> accounts.fail("constructed")));
            assertThat(hidden.code()).isEqualTo(XioErrorCode.UNKNOWN);
            assertThat(hidden.remoteType()).isEqualTo(XioErrorDisclosure.HIDDEN_TYPE);
            assertThat(hidden).hasMessageNotContaining("made on the server")
                .hasMessageNotContaining(Failures.Constructed.class.getName());
            final Matcher id = ERROR_ID.matcher(hidden.remoteMessage());
            assertThat(id.find()).as(hidden.remoteMessage()).isTrue();
            // The server's log has the id with the class, the message and the stack trace.
            final String line = output.getAll().lines().filter(l -> l.contains("error id " + id.group(1)))
                .findFirst().orElseThrow();
            assertThat(line).contains("accounts.fail");
            assertThat(output.getAll()).contains(Failures.Constructed.class.getName() + ": made on the server")
                .contains("at " + Failures.class.getName());

            // A JDK type the client could rebuild is not rebuilt: its name did not travel.
            assertThat(remote(catchThrowable(() -> accounts.fail("illegal-argument"))).remoteMessage())
                .doesNotContain("bad argument").contains("error id");
            // A handler that throws another exception answers with it, undisclosed as well.
            assertThat(remote(catchThrowable(() -> accounts.fail("translated"))).remoteType())
                .isEqualTo(XioErrorDisclosure.HIDDEN_TYPE);
            // The same for a future's failure.
            assertThat(catchThrowable(() -> accounts.failAsync("constructed").get(5, TimeUnit.SECONDS)))
                .cause().isExactlyInstanceOf(XioRemoteException.class).hasMessageContaining("error id")
                .hasMessageNotContaining("made on the server");
        });
    }

    @Test
    void declaredExceptionsKeepTheirTypeAndMessageAndHandlersAnswersTheirCodeAndMessage()
    {
        withClient(accounts ->
        {
            assertThatThrownBy(() -> accounts.open("bob")).isExactlyInstanceOf(AccountException.class)
                .hasMessage("no account bob");
            // A handler's code and message travel; the class name of an undeclared type does not.
            final XioRemoteException ledger = remote(catchThrowable(() -> accounts.fail("ledger")));
            assertThat(ledger.remoteType()).isEqualTo(XioErrorDisclosure.HIDDEN_TYPE);
            assertThat(ledger).hasMessageNotContaining(Failures.LedgerException.class.getName());
            assertThat(ledger.code()).isEqualTo(XioErrorCode.FAILED_PRECONDITION);
            assertThat(ledger.remoteMessage()).isEqualTo("ledger: ledger broken");
            final XioRemoteException number = remote(catchThrowable(() -> accounts.fail("number")));
            assertThat(number.remoteType()).isEqualTo(XioErrorDisclosure.HIDDEN_TYPE);
            assertThat(number.remoteMessage()).isEqualTo("not a number");
        });
        withClient(accounts -> assertThatThrownBy(() -> accounts.fail("number"))
            .isExactlyInstanceOf(NumberFormatException.class).hasMessage("not a number"),
            "xio.server.error.include-exception=true");
    }

    @Test
    void developmentSettingsDiscloseTheMessageTheTypeOrBoth()
    {
        withClient(accounts ->
        {
            final XioRemoteException shown = remote(catchThrowable(() -> accounts.fail("constructed")));
            assertThat(shown.remoteMessage()).isEqualTo("made on the server");
            assertThat(shown.remoteType()).isEqualTo(XioErrorDisclosure.HIDDEN_TYPE);
            assertThat(shown).hasMessageNotContaining("\tat "); // no stack trace, ever
        }, "xio.server.error.include-message=always");
        withClient(accounts ->
        {
            // The type travels, so the client rebuilds the JDK type; the message stays generic.
            assertThatThrownBy(() -> accounts.fail("illegal-argument"))
                .isExactlyInstanceOf(IllegalArgumentException.class).hasMessageContaining("error id")
                .hasMessageNotContaining("bad argument");
        }, "xio.server.error.include-exception=true");
        withClient(accounts ->
        {
            assertThatThrownBy(() -> accounts.fail("illegal-argument"))
                .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("bad argument");
            final XioRemoteException constructed = remote(catchThrowable(() -> accounts.fail("constructed")));
            assertThat(constructed.remoteType()).isEqualTo(Failures.Constructed.class.getName());
            assertThat(constructed.remoteMessage()).isEqualTo("made on the server");
        }, "xio.server.error.include-message=always", "xio.server.error.include-exception=true");
    }
}
