/**
 * Queues, on Apache Curator's znode layouts, so Baton and Curator producers and consumers share a queue:
 * {@link dev.baton.recipes.queue.DistributedQueue} (FIFO), {@link dev.baton.recipes.queue.DistributedIdQueue}
 * (items with ids, removable), {@link dev.baton.recipes.queue.DistributedPriorityQueue},
 * {@link dev.baton.recipes.queue.DistributedDelayQueue} (each built by
 * {@link dev.baton.recipes.queue.QueueBuilder}) and {@link dev.baton.recipes.queue.SimpleDistributedQueue}
 * (byte arrays, a {@code java.util.Queue}-like API).
 *
 * <h2>Deep queues</h2>
 * ZooKeeper lists a node's children in one reply, and a client drops its connection on a reply larger than its
 * {@code jute.maxbuffer} (1 MB by default: about 50,000 names such as {@code queue-0000000001}). Curator's
 * consumers then fail on every listing (its Tech Note 4; its answer is {@code QueueSharder}, spreading items over
 * several queue paths). Baton's consumer never asks for such a listing: it reads the queue node's child count
 * first whenever the queue may be large, and finds a deep {@code DistributedQueue}'s items by their predictable
 * names instead ({@code queue-} and the sequence, which ZooKeeper takes from the parent's {@code cversion}),
 * pipelined, newest sequence first, down to the previous look's high mark. A deep queue thus keeps being consumed
 * on one path, with Curator's layout. Priority, id and delay queues carry data in their names: keep them within
 * one listing with {@code maxItems}; a consumer of one that is too deep waits and logs an error rather than
 * breaking its client's connection.
 *
 * <h2>When to use a message broker instead</h2>
 * ZooKeeper keeps every item in memory on every server and writes each put and take to its transaction log;
 * every consumer is told of every change of the queue. That suits coordination-sized queues: hundreds to
 * thousands of items per second, items of a few kilobytes, a handful of consumers. For sustained high volume,
 * large messages, retention, replay or fan-out to many consumer groups, use a message broker (Kafka, RabbitMQ,
 * Pulsar, a cloud queue).
 */
@NullMarked
package dev.baton.recipes.queue;

import org.jspecify.annotations.NullMarked;
