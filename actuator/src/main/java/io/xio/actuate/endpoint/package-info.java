/**
 * The {@code xio} actuator endpoint: the engine, its portals, sessions, services and clients, and a drain.
 */
@NullMarked
package io.xio.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
