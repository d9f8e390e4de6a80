/**
 * Clusters: endpoints of a logical service as a resolver reports them ({@link io.xio.cluster.EndpointResolver},
 * static or backed by a coordination service), servers registering themselves
 * ({@link io.xio.cluster.EndpointRegistry}), and one client over every current endpoint
 * ({@link io.xio.cluster.ServiceClient}) that picks each endpoint's transport by locality and spreads calls
 * with a {@link io.xio.cluster.LoadBalancer}.
 */
package io.xio.cluster;
