/**
 * Health in the protocol: the {@code xio.health} resource every server exports
 * ({@link io.xio.spring.health.XioHealth}), which answers whether the server, or one of its services, takes calls,
 * as gRPC's {@code grpc.health.v1} does; what it answers comes from the server's own state and the
 * {@link io.xio.spring.health.XioHealthSource}s given to it. It still answers while the server drains.
 */
@NullMarked
package io.xio.spring.health;

import org.jspecify.annotations.NullMarked;
