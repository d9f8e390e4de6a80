/**
 * Failure analyzers that explain xio's start-up failures the way Spring Boot explains its own.
 */
@NullMarked
package io.xio.spring.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
