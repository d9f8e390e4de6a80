/**
 * Auto-configuration of xio: the engine from {@code xio.*} properties, the service exporter and the client beans.
 */
@NullMarked
package io.xio.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
