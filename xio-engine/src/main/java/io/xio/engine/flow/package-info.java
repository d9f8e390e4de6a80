/**
 * A {@link java.util.concurrent.Flow} view of a stream ({@link io.xio.engine.XioStream}), for code written against
 * Reactive Streams: {@link io.xio.engine.flow.FlowStream} opens or accepts a stream and owns its one
 * {@link io.xio.engine.StreamListener}, and hands out a {@link io.xio.engine.flow.StreamPublisher} of the messages that
 * arrive and a {@link io.xio.engine.flow.StreamSubscriber} that sends into the stream. Built on the engine's API
 * alone; the credit of the stream's window is the back-pressure in both directions.
 */
package io.xio.engine.flow;
