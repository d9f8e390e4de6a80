/**
 * Auto-configuration of the engine's meters and the timers of xio calls.
 */
@NullMarked
package io.xio.actuate.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
