/**
 * Calling a service by hand: the {@code xio.reflection} resource that lists the exported services and describes
 * their methods with JSON Schema ({@link io.xio.spring.reflection.XioReflection}), exported like any
 * service, so authentication, interceptors and observations apply to it as to every call.
 */
@NullMarked
package io.xio.spring.reflection;

import org.jspecify.annotations.NullMarked;
