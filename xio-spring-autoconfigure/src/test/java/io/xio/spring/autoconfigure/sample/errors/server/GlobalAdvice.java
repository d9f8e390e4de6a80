package io.xio.spring.autoconfigure.sample.errors.server;

import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioServiceAdvice;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.autoconfigure.sample.errors.api.Failures;
import org.springframework.core.annotation.Order;

/** Advises every service, before {@link AccountsAdvice}. */
@XioServiceAdvice
@Order(1)
public class GlobalAdvice
{
    @XioExceptionHandler
    XioError audit(final Failures.AuditException ex)
    {
        return XioError.of(XioErrorCode.UNAVAILABLE, "global: " + ex.getMessage());
    }
}
