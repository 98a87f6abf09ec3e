/**
 * Scenario benchmarks that run Baton, Apache Curator and the bare ZooKeeper client through the same scenario
 * against the same server in the same run.
 *
 * <p>The moving parts:
 * <ul>
 *   <li>{@link dev.baton.bench.BenchClient}: one adapter per library (in {@code dev.baton.bench.impl}, beside
 *       each other, as Caffeine's {@code jmh/.../impl/}); a scenario only talks to this interface.</li>
 *   <li>{@code Scenario}: one class per scenario, listed once in {@code Scenarios}.</li>
 *   <li>{@code BenchRunner}: warms every adapter up, then interleaves the adapters over several rounds and keeps
 *       each adapter's median round.</li>
 *   <li>{@link dev.baton.bench.BenchMain}: the command line; prints a markdown table per scenario.</li>
 * </ul>
 */
package dev.baton.bench;
