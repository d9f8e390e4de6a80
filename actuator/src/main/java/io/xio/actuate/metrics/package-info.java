/**
 * The engine's figures as Micrometer meters, and a timer for every xio call.
 */
@NullMarked
package io.xio.actuate.metrics;

import org.jspecify.annotations.NullMarked;
