/**
 * Service discovery on ZooKeeper, under the names and on the znode layout and JSON of Curator's
 * {@code curator-x-discovery}: Baton, Curator and Spring Cloud Zookeeper processes register on one base path and
 * find each other's instances.
 *
 * <p>Start with {@link dev.baton.discovery.ServiceDiscoveryBuilder}: register
 * {@link dev.baton.discovery.ServiceInstance}s, query them, keep a {@link dev.baton.discovery.ServiceCache} of a
 * service, and pick instances with a {@link dev.baton.discovery.ServiceProvider}.
 */
@NullMarked
package dev.baton.discovery;

import org.jspecify.annotations.NullMarked;
