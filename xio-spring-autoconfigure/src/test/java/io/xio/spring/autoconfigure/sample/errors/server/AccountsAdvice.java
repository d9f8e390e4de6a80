package io.xio.spring.autoconfigure.sample.errors.server;

import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioServiceAdvice;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.autoconfigure.sample.errors.api.Accounts;
import io.xio.spring.autoconfigure.sample.errors.api.Failures;
import org.springframework.core.annotation.Order;

/** Advises the services implementing {@link Accounts}, after {@link GlobalAdvice}. */
@XioServiceAdvice(assignableTypes = Accounts.class)
@Order(2)
public class AccountsAdvice
{
    @XioExceptionHandler({Failures.AuditException.class, Failures.DeepAuditException.class})
    XioError audit(final Failures.AuditException ex)
    {
        return XioError.of(XioErrorCode.INTERNAL, "accounts: " + ex.getMessage());
    }

    @XioExceptionHandler
    XioError frozen(final Failures.FrozenException ex)
    {
        return XioError.of(XioErrorCode.PERMISSION_DENIED, "frozen");
    }

    @XioExceptionHandler
    XioError unsupported(final UnsupportedOperationException ex)
    {
        return XioError.of(XioErrorCode.UNIMPLEMENTED, "advised: " + ex.getMessage());
    }
}
