/**
 * xio's annotations: {@link io.xio.annotation.XioService} exports a service, {@link io.xio.annotation.XioClient}
 * marks a client, {@link io.xio.annotation.XioMethod} tunes one method. No dependency on Spring, so API
 * modules can carry them.
 */
package io.xio.annotation;
