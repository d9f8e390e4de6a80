/**
 * The {@code xio} health indicator and its settings ({@code management.health.xio.*}), and the actuator's health as
 * a source of the {@code xio.health} resource.
 */
@NullMarked
package io.xio.actuate.health;

import org.jspecify.annotations.NullMarked;
