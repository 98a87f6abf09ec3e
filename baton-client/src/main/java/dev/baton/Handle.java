package dev.baton;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;

/**
 * The client's ZooKeeper handle: ZooKeeper's own, telling also which server it is connected to (for
 * {@link ServerFeatures}, which asks that server its version).
 */
@SuppressWarnings("try") // ZooKeeper's own close() throws InterruptedException; this class changes nothing there
final class Handle extends ZooKeeper {

    Handle(String connectString, int sessionTimeoutMs, Watcher watcher, boolean canBeReadOnly) throws IOException {
        super(connectString, sessionTimeoutMs, watcher, canBeReadOnly);
    }

    Handle(String connectString, int sessionTimeoutMs, Watcher watcher, boolean canBeReadOnly, ZKClientConfig config)
            throws IOException {
        super(connectString, sessionTimeoutMs, watcher, canBeReadOnly, config);
    }

    /** {@return the address of the server this handle is connected to, or null while it is not} */
    @Nullable InetSocketAddress server() {
        SocketAddress address = testableRemoteSocketAddress();
        return address instanceof InetSocketAddress inet ? inet : null;
    }
}
