/**
 * xio over Spring Cloud discovery: clients that name a service, and servers that register their portals.
 */
@NullMarked
package io.xio.spring.autoconfigure.cluster;

import org.jspecify.annotations.NullMarked;
