/**
 * Auto-configuration of the {@code xio} health indicator.
 */
@NullMarked
package io.xio.actuate.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
