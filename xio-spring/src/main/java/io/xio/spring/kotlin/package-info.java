/**
 * Kotlin on both sides of a call: {@code suspend} functions and kotlinx-coroutines {@code Flow}s in service
 * interfaces, run and called through kotlinx-coroutines' Reactor bridge. Loaded only for such methods, so an
 * application without Kotlin never loads these classes.
 */
@NullMarked
package io.xio.spring.kotlin;

import org.jspecify.annotations.NullMarked;
