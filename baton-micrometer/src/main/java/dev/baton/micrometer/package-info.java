/**
 * Micrometer metrics for a Baton client and its recipes, without Spring:
 * {@link dev.baton.micrometer.BatonMetrics#monitor(dev.baton.BatonClient, io.micrometer.core.instrument.MeterRegistry)}
 * binds the client's meters through its {@link dev.baton.OperationListener} hook, and registers locks and leader
 * elections for their own meters.
 */
@NullMarked
package dev.baton.micrometer;

import org.jspecify.annotations.NullMarked;
