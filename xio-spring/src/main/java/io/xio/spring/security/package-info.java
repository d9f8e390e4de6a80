/** Spring Security for xio: authenticated session set-ups, a call's security context, access denials. */
@NullMarked
package io.xio.spring.security;

import org.jspecify.annotations.NullMarked;
