/** Service interface methods as both sides see them: wire names, segments, return kinds, call settings. */
@NullMarked
package io.xio.spring.method;

import org.jspecify.annotations.NullMarked;
