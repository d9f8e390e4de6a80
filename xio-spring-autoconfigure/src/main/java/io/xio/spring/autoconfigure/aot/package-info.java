/**
 * Ahead-of-time processing for xio: the runtime hints (proxies, reflection, Jackson binding) an application's
 * clients and services need in a native image or when it runs with {@code spring.aot.enabled}.
 */
@NullMarked
package io.xio.spring.autoconfigure.aot;

import org.jspecify.annotations.NullMarked;
