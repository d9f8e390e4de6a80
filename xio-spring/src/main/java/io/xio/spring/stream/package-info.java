/**
 * Streams of service methods that return or take a {@code Flux} (or {@code Publisher}): how one message of a stream
 * is encoded ({@link io.xio.spring.stream.StreamMessages}), and the bridge between Reactor and xio's
 * {@link io.xio.engine.flow.FlowStream} ({@link io.xio.spring.stream.ReactorStreams}), which the service side
 * ({@code io.xio.spring.service}) and the client proxy ({@code io.xio.spring.client}) share.
 */
@NullMarked
package io.xio.spring.stream;

import org.jspecify.annotations.NullMarked;
