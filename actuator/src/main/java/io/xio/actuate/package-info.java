/**
 * Spring Boot Actuator health and Micrometer metrics support for xio.
 */
package io.xio.actuate;
