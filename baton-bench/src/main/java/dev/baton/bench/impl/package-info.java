/**
 * The library adapters, side by side: Baton, Apache Curator and the bare ZooKeeper client, each implementing
 * {@link dev.baton.bench.BenchClient} the way that library's users would write the calls.
 */
package dev.baton.bench.impl;
