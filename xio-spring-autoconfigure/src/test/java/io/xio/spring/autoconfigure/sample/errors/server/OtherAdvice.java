package io.xio.spring.autoconfigure.sample.errors.server;

import io.xio.annotation.XioExceptionHandler;
import io.xio.annotation.XioServiceAdvice;
import io.xio.spring.error.XioError;
import io.xio.spring.error.XioErrorCode;

/** Advises only a service named "other", so none of this application's. */
@XioServiceAdvice(services = "other")
public class OtherAdvice
{
    @XioExceptionHandler
    XioError anything(final RuntimeException ex)
    {
        return XioError.of(XioErrorCode.DATA_LOSS, "other");
    }
}
