/**
 * The client side of the sample: {@code @XioClient} interfaces over the shared {@link io.xio.sample.api} package,
 * injected by constructor into the load generators. Nothing here depends on the server's classes
 * ({@code ClientDependenciesTest} checks it).
 */
package io.xio.sample.client;
