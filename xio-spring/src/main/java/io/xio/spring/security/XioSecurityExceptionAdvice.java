package io.xio.spring.security;

import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioServiceAdvice;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;

/**
 * Answers Spring Security's refusals inside a service method (method security, or the service's own checks) with
 * the codes that say so: {@link XioErrorCode#PERMISSION_DENIED} for an {@link AccessDeniedException},
 * {@link XioErrorCode#UNAUTHENTICATED} for an {@link AuthenticationException}; the caller gets an
 * {@code XioAccessDeniedException}. The message is a fixed one: the exception's may say more than a caller should
 * hear. Last of the advices, so the application's own handlers for these types come first.
 */
@XioServiceAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class XioSecurityExceptionAdvice
{
    @XioExceptionHandler
    XioError accessDenied(final AccessDeniedException ex)
    {
        return XioError.of(XioErrorCode.PERMISSION_DENIED, "access denied");
    }

    @XioExceptionHandler
    XioError unauthenticated(final AuthenticationException ex)
    {
        return XioError.of(XioErrorCode.UNAUTHENTICATED, "authentication required");
    }
}
