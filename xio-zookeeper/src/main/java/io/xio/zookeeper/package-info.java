/**
 * Cluster membership on ZooKeeper through Apache Curator: {@link io.xio.zookeeper.ZooKeeperEndpoints} registers
 * servers' endpoints as ephemeral nodes and watches a service's members for clients
 * ({@link io.xio.engine.cluster.EndpointRegistry}, {@link io.xio.engine.cluster.EndpointResolver}).
 */
package io.xio.zookeeper;
