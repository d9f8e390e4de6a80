/** The errors a service answers with: codes, bodies, and what of a failure its callers are told. */
@NullMarked
package io.xio.spring.error;

import org.jspecify.annotations.NullMarked;
