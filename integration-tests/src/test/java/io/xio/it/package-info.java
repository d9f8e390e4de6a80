/**
 * End-to-end tests that exercise xio across modules.
 */
package io.xio.it;
