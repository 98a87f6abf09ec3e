package dev.baton;

import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * One ZooKeeper request in its two forms: the handle's blocking API (used by {@code forPath}, so a blocking call
 * costs no thread hand-off) and its callback API (used by the asynchronous forms).
 *
 * @param <T> the result
 */
interface ZkCall<T> {

    T sync(ZooKeeper zk) throws KeeperException, InterruptedException;

    /** Sends the request; the callback completes {@code result}. */
    void async(ZooKeeper zk, CompletableFuture<T> result);

    /** Completes {@code f} from a ZooKeeper callback's result code; {@code value} is null for a {@code Void}. */
    static <T> void complete(CompletableFuture<T> f, int rc, String path, @Nullable T value) {
        if (rc == KeeperException.Code.OK.intValue()) {
            f.complete(value);
        } else {
            f.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
        }
    }
}
