/**
 * Cluster membership on ZooKeeper through Apache Curator: {@link io.xio.zookeeper.ZooKeeperEndpoints} registers
 * servers' endpoints as ephemeral nodes and watches a service's members for clients
 * ({@link io.xio.cluster.EndpointRegistry}, {@link io.xio.cluster.EndpointResolver}).
 */
package io.xio.zookeeper;
