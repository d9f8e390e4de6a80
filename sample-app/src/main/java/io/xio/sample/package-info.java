/**
 * Runnable samples that show how to use xio.
 */
package io.xio.sample;
