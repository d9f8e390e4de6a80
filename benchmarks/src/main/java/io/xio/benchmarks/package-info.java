/**
 * JMH micro-benchmarks for the xio engine.
 */
package io.xio.benchmarks;
