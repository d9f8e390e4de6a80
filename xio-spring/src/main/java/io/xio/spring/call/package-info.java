/**
 * A call as interceptors and service methods see it: {@link io.xio.spring.call.XioServerCall} (the
 * caller's metadata and deadline, trailers, and the call the thread serves), {@link
 * io.xio.spring.call.XioClientCall}, and the interceptor beans around both sides.
 */
@NullMarked
package io.xio.spring.call;

import org.jspecify.annotations.NullMarked;
