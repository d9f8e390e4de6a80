/**
 * Annotations for declaring xio services, clients and their methods, such as
 * {@code @XioService}, {@code @XioClient} and {@code @XioMethod}, which arrive with the Spring
 * Boot starter.
 */
package io.xio.annotation;
