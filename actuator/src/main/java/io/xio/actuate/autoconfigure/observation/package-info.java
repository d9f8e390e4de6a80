/**
 * Auto-configuration of Micrometer observations (and through them, tracing) of xio calls.
 */
@NullMarked
package io.xio.actuate.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
