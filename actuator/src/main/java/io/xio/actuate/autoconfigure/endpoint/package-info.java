/**
 * Auto-configuration of the {@code xio} actuator endpoint and the masking of client credentials it shows.
 */
@NullMarked
package io.xio.actuate.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
