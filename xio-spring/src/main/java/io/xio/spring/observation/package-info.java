/** Instrumentation hooks: what a call is, how it ended, and the recorder metrics and observations use. */
@NullMarked
package io.xio.spring.observation;

import org.jspecify.annotations.NullMarked;
