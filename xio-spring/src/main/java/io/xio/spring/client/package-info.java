/** Client proxies of {@code @XioClient} interfaces: the call pipeline, retries, credentials and settings. */
@NullMarked
package io.xio.spring.client;

import org.jspecify.annotations.NullMarked;
