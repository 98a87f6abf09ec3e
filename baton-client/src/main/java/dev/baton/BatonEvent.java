package dev.baton;

import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of an operation run {@code inBackground(...)}, or a watched event, as given to a
 * {@link BackgroundCallback} or {@link BatonListener}. Paths are the user's (without the namespace).
 *
 * <p>Fields that the operation does not produce are null: for example {@link #children()} is set only for
 * {@link BatonEventType#CHILDREN}. On failure {@link #resultCode()} is the ZooKeeper error code and the result
 * fields are null.
 *
 * @param type what completed
 * @param resultCode {@code 0} on success, otherwise a {@link KeeperException.Code} value
 * @param path the path the operation was called with
 * @param name for a create, the path of the node created (with its sequence suffix); otherwise the path
 * @param children the child names, for {@link BatonEventType#CHILDREN}
 * @param data the node data, for {@link BatonEventType#GET_DATA}
 * @param stat the node's stat, where the operation returns one
 * @param watchedEvent the event, for {@link BatonEventType#WATCHED}
 * @param acls the ACL, for {@link BatonEventType#GET_ACL}
 * @param opResults the per-operation results, for {@link BatonEventType#TRANSACTION}
 */
public record BatonEvent(
        BatonEventType type,
        int resultCode,
        @Nullable String path,
        @Nullable String name,
        @Nullable List<String> children,
        // ZooKeeper's bytes as the operation returned them, not copied: an event is handed to its callback once.
        @SuppressWarnings("ArrayRecordComponent") byte @Nullable [] data,
        @Nullable Stat stat,
        @Nullable WatchedEvent watchedEvent,
        @Nullable List<ACL> acls,
        @Nullable List<BatonTransactionResult> opResults) {

    /** {@return true if the operation succeeded} */
    public boolean isOk() {
        return resultCode == KeeperException.Code.OK.intValue();
    }

    /** {@return the result code as ZooKeeper's enum} */
    public KeeperException.Code code() {
        return KeeperException.Code.get(resultCode);
    }

    @Override
    public String toString() {
        return "BatonEvent[type=" + type + ", resultCode=" + code() + ", path=" + path + ", name=" + name
                + (children != null ? ", children=" + children : "")
                + (data != null ? ", data=<" + data.length + " bytes>" : "")
                + (stat != null ? ", stat=" + stat.toString().trim() : "")
                + (watchedEvent != null ? ", watchedEvent=" + watchedEvent : "") + "]";
    }
}
