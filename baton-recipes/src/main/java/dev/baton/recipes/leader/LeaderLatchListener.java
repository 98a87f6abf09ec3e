package dev.baton.recipes.leader;

/**
 * Told when a {@link LeaderLatch} gains or loses leadership. Calls arrive in order, never concurrently for one
 * latch, on the thread that saw the change (a ZooKeeper callback thread) unless an executor was given; they
 * should return quickly or hand work off.
 */
public interface LeaderLatchListener {

    /** This latch has become the leader. */
    void isLeader();

    /** This latch is no longer the leader (connection trouble, a lost session, or {@code close()}). */
    void notLeader();
}
