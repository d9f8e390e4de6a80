/**
 * Micrometer observations of xio calls, on both sides, with their contexts, conventions and documentation.
 */
@NullMarked
package io.xio.actuate.observation;

import org.jspecify.annotations.NullMarked;
