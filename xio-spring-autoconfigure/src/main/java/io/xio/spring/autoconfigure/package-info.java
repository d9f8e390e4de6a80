/**
 * Spring Boot auto-configuration for the xio engine.
 */
package io.xio.spring.autoconfigure;
