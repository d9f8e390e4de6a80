/**
 * Auto-configuration of the health resource ({@code xio.health}) and its sources.
 */
@NullMarked
package io.xio.spring.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
