/** HTTP/JSON calls of the exported services on Spring MVC: a router function. */
@NullMarked
package io.xio.spring.http.webmvc;

import org.jspecify.annotations.NullMarked;
