/**
 * The {@code xio} health indicator and its settings ({@code management.health.xio.*}).
 */
@NullMarked
package io.xio.actuate.health;

import org.jspecify.annotations.NullMarked;
