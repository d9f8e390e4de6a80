/**
 * xio's annotations: {@link io.xio.annotation.XioService} exports a service, {@link io.xio.annotation.XioClient}
 * marks a client, {@link io.xio.annotation.XioMethod} tunes one method, {@link io.xio.annotation.XioExceptionHandler}
 * and {@link io.xio.annotation.XioServiceAdvice} map a service's exceptions to the errors its callers get. No
 * dependency on Spring, so API modules can carry them.
 */
package io.xio.annotation;
