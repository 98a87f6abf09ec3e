package dev.baton.recipes.nodes;

import dev.baton.BatonClient;
import dev.baton.internal.BatonPaths;
import dev.baton.recipes.cache.BatonCache;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Membership of a group: this member keeps an ephemeral node {@code membershipPath/thisId} holding its payload
 * (a {@link PersistentNode}, so it comes back after a session loss), and sees the other members through a
 * {@link BatonCache} of {@code membershipPath}. Same layout as Curator's {@code GroupMember}. Works on every
 * server line: the cache follows the group with one persistent recursive watch on ZooKeeper 3.6 and newer, and
 * with one-shot watches (on the group and on each member node, set again after each event) on 3.5.
 *
 * <pre>{@code
 * try (GroupMember member = new GroupMember(client, "/services/api/members", "host-1", address)) {
 *     member.start();
 *     Map<String, byte[]> members = member.getCurrentMembers();
 * }
 * }</pre>
 *
 * <p>Thread-safe; no thread of its own.
 */
public final class GroupMember implements AutoCloseable {
    private final String membershipPath;
    private final String thisId;
    private final PersistentNode node;
    private final BatonCache cache;

    /**
     * A member with an empty payload.
     *
     * @param client the client
     * @param membershipPath the group's path
     * @param thisId this member's id: a node name (no {@code /})
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path or the id is invalid
     */
    public GroupMember(BatonClient client, String membershipPath, String thisId) {
        this(client, membershipPath, thisId, new byte[0]);
    }

    /**
     * @param client the client
     * @param membershipPath the group's path
     * @param thisId this member's id: a node name (no {@code /})
     * @param payload this member's data
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the path or the id is invalid
     */
    public GroupMember(BatonClient client, String membershipPath, String thisId, byte[] payload) {
        Objects.requireNonNull(client, "client");
        this.membershipPath = BatonPaths.validate(Objects.requireNonNull(membershipPath, "membershipPath"));
        this.thisId = Objects.requireNonNull(thisId, "thisId");
        Objects.requireNonNull(payload, "payload");
        if (thisId.isEmpty() || thisId.indexOf('/') >= 0) {
            throw new IllegalArgumentException("thisId must be a node name (not empty, no '/'): \"" + thisId + "\"");
        }
        String path = BatonPaths.validate(BatonPaths.makePath(membershipPath, thisId));
        this.node = new PersistentNode(client, CreateMode.EPHEMERAL, false, path, payload);
        this.cache = BatonCache.build(client, membershipPath);
    }

    /**
     * Joins the group: starts creating this member's node and caching the group. Returns at once.
     *
     * @throws IllegalStateException if already started or closed
     */
    public void start() {
        node.start();
        cache.start();
    }

    /**
     * Changes this member's payload.
     *
     * @param data the new payload
     * @throws KeeperException if the server refused the write
     * @throws InterruptedException if interrupted while waiting for the write
     * @throws NullPointerException if {@code data} is null
     * @throws IllegalStateException if not started or closed
     */
    public void setThisData(byte[] data) throws KeeperException, InterruptedException {
        node.setData(data);
    }

    /**
     * The members as this member's cache sees them now, this member always included (with its current payload,
     * even before its node is created or while it is being re-created).
     *
     * @return a new map from member id to payload
     */
    public Map<String, byte[]> getCurrentMembers() {
        Map<String, byte[]> members = new HashMap<>();
        cache.stream().forEach(child -> {
            String path = child.path();
            if (!path.equals(membershipPath) && BatonPaths.parent(path).equals(membershipPath)) {
                members.put(BatonPaths.nodeName(path), child.data());
            }
        });
        members.put(thisId, node.getData());
        return members;
    }

    /** Leaves the group: deletes this member's node and stops caching. Closing twice does nothing. */
    @Override
    public void close() {
        cache.close();
        node.close();
    }
}
