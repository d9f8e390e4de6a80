/**
 * TLS options for portals and clients from Spring Boot's SSL bundles, following their reloads.
 */
@NullMarked
package io.xio.spring.autoconfigure.ssl;

import org.jspecify.annotations.NullMarked;
