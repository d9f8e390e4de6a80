/**
 * Helpers built on the engine's API, none of which the engine needs to run a call: a handler that queues work for a
 * bounded pool ({@link io.xio.engine.support.QueueingHandler}), acceptors that redirect set-ups
 * ({@link io.xio.engine.support.Redirectors}), a request wrapper for interceptors
 * ({@link io.xio.engine.support.ForwardingInboundRequest}) and exponential backoff with jitter
 * ({@link io.xio.engine.support.Backoff}).
 */
package io.xio.engine.support;
