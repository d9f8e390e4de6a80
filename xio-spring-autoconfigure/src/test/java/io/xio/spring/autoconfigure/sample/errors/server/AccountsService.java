package io.xio.spring.autoconfigure.sample.errors.server;

import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioService;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.autoconfigure.sample.errors.api.AccountException;
import io.xio.spring.autoconfigure.sample.errors.api.Accounts;
import io.xio.spring.autoconfigure.sample.errors.api.ClosedAccountException;
import io.xio.spring.autoconfigure.sample.errors.api.Failures;

import java.util.concurrent.CompletableFuture;

/** Fails as asked; its own handlers map the ledger's failures, decline one and translate another. */
@XioService("accounts")
public class AccountsService implements Accounts
{
    @Override
    public String fail(final String kind)
    {
        throw Failures.named(kind);
    }

    @Override
    public CompletableFuture<String> failAsync(final String kind)
    {
        return CompletableFuture.failedFuture(Failures.named(kind));
    }

    @Override
    public String open(final String name) throws AccountException
    {
        throw "closed".equals(name) ? new ClosedAccountException(name + " is closed")
            : new AccountException("no account " + name);
    }

    @XioExceptionHandler
    XioError ledger(final Failures.LedgerException ex)
    {
        return XioError.of(XioErrorCode.FAILED_PRECONDITION, "ledger: " + ex.getMessage());
    }

    @XioExceptionHandler
    XioError overdrawn(final Failures.OverdrawnException ex)
    {
        return XioError.of(XioErrorCode.RESOURCE_EXHAUSTED, "overdrawn " + ex.getMessage());
    }

    @XioExceptionHandler(NumberFormatException.class)
    XioError notANumber()
    {
        return XioError.of(XioErrorCode.INVALID_ARGUMENT, "not a number");
    }

    @XioExceptionHandler
    XioError decline(final Failures.DeclinedException ex)
    {
        throw ex;
    }

    @XioExceptionHandler
    XioError translate(final Failures.TranslatedException ex)
    {
        throw new IllegalStateException("translated: " + ex.getMessage());
    }
}
