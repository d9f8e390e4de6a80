package io.xio.spring.security;

import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioServiceAdvice;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;
import io.xio.spring.error.XioErrorDisclosure;
import io.xio.spring.service.XioExceptionHandlers;
import org.junit.jupiter.api.Test;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authorization.AuthorizationDeniedException;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Security's refusals reach the caller as refusals even when the application has a catch-all handler, and
 * only an application's handler for the refusal's own type words them otherwise.
 */
class XioExceptionHandlersSecurityTest
{
    /** The exported interface. */
    interface Api
    {
        String call();
    }

    /** An application's catch-all, ahead of the security advice. */
    @XioServiceAdvice
    static class CatchAll
    {
        @XioExceptionHandler(Exception.class)
        XioError anything()
        {
            return XioError.of(XioErrorCode.INTERNAL, "something went wrong");
        }
    }

    /** An application that words access denials itself. */
    @XioServiceAdvice
    static class OwnDenials
    {
        @XioExceptionHandler(AccessDeniedException.class)
        XioError denied()
        {
            return XioError.of(XioErrorCode.PERMISSION_DENIED, "not for you");
        }
    }

    private static XioExceptionHandlers handlers(final Object... advices)
    {
        final List<Object> all = new java.util.ArrayList<>(List.of(advices));
        all.add(new XioSecurityExceptionAdvice());
        return XioExceptionHandlers.of(new Object(), "api", Api.class, all, XioErrorDisclosure.HIDDEN);
    }

    @Test
    void aCatchAllHandlerDoesNotSwallowSecurityRefusals()
    {
        final XioExceptionHandlers handlers = handlers(new CatchAll());
        assertThat(handlers.answer(new AuthorizationDeniedException("denied")).error().code())
            .isEqualTo(XioErrorCode.PERMISSION_DENIED);
        assertThat(handlers.answer(new AccessDeniedException("denied")).error().code())
            .isEqualTo(XioErrorCode.PERMISSION_DENIED);
        assertThat(handlers.answer(new BadCredentialsException("bad")).error().code())
            .isEqualTo(XioErrorCode.UNAUTHENTICATED);
        // Everything else is still the catch-all's.
        assertThat(handlers.answer(new IllegalStateException("x")).error().message())
            .isEqualTo("something went wrong");
    }

    @Test
    void anApplicationsHandlerForTheRefusalTypeItselfStillAnswers()
    {
        final XioExceptionHandlers handlers = handlers(new CatchAll(), new OwnDenials());
        assertThat(handlers.answer(new AuthorizationDeniedException("denied")).error().message())
            .isEqualTo("not for you");
    }
}
