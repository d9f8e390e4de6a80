/**
 * Auto-configuration of Spring Security for xio: session set-ups authenticated, calls run as the caller.
 */
@NullMarked
package io.xio.spring.autoconfigure.security;

import org.jspecify.annotations.NullMarked;
