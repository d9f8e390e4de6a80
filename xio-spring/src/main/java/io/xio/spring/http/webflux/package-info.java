/** HTTP/JSON calls of the exported services on Spring WebFlux: a router function. */
@NullMarked
package io.xio.spring.http.webflux;

import org.jspecify.annotations.NullMarked;
