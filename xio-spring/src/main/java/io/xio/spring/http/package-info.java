/**
 * HTTP/JSON access to the exported services on the application's own web server: {@code POST
 * {prefix}/{service}/{method}} with the arguments as JSON, run as an xio call of the service is
 * ({@link io.xio.spring.http.XioHttpCalls}), with router functions for Spring MVC and WebFlux in the sub-packages.
 */
@NullMarked
package io.xio.spring.http;

import org.jspecify.annotations.NullMarked;
