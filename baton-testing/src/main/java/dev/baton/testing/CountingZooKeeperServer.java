package dev.baton.testing;

import java.io.IOException;
import java.util.Objects;
import org.apache.zookeeper.server.FinalRequestProcessor;
import org.apache.zookeeper.server.PrepRequestProcessor;
import org.apache.zookeeper.server.Request;
import org.apache.zookeeper.server.SyncRequestProcessor;
import org.apache.zookeeper.txn.CreateContainerTxn;
import org.apache.zookeeper.txn.CreateTTLTxn;
import org.apache.zookeeper.txn.CreateTxn;
import org.apache.zookeeper.txn.MultiTxn;
import org.apache.zookeeper.txn.Txn;
import org.apache.zookeeper.server.ByteBufferInputStream;
import java.nio.ByteBuffer;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.proto.RequestHeader;
import org.apache.zookeeper.server.RequestProcessor;
import org.apache.zookeeper.server.RequestRecord;
import org.apache.zookeeper.server.ServerCnxn;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.jspecify.annotations.Nullable;

/**
 * A standalone {@link ZooKeeperServer} that reports every client request packet to a {@link RequestCounter}
 * and exposes its first request processor (needed to run a {@code ContainerManager}, as
 * {@code ZooKeeperServerMain} does from inside ZooKeeper's own package).
 *
 * <p>One instance lives for one start of an {@link EmbeddedZooKeeper}; the counter outlives it.
 */
final class CountingZooKeeperServer extends ZooKeeperServer {

    private final RequestCounter counter;
    private final RequestFaults faults;

    CountingZooKeeperServer(
            FileTxnSnapLog snapLog,
            int tickTimeMs,
            int minSessionTimeoutMs,
            int maxSessionTimeoutMs,
            RequestCounter counter,
            RequestFaults faults) {
        // listen backlog -1: the JVM default; zkDb null: created from snapLog in startdata(); no initial config.
        super(snapLog, tickTimeMs, minSessionTimeoutMs, maxSessionTimeoutMs, -1, null, "");
        this.counter = Objects.requireNonNull(counter, "counter");
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    /** ZooKeeper's standalone chain, with a last processor that can lose a create's reply on purpose. */
    @Override
    protected void setupRequestProcessors() {
        RequestProcessor last = new FinalRequestProcessor(this) {
            @Override
            public void processRequest(Request request) {
                String path = request.cnxn != null ? createdPath(request) : null;
                if (path != null && faults.takeCreateReplyDrop(path)) {
                    // Close the client's connection first: the create is still applied below, but its reply
                    // goes to a closed connection, so the client sees a connection loss for a create that happened.
                    request.cnxn.close(ServerCnxn.DisconnectReason.CONNECTION_CLOSE_FORCED);
                }
                super.processRequest(request);
            }
        };
        SyncRequestProcessor sync = new SyncRequestProcessor(this, last);
        sync.start();
        PrepRequestProcessor prep = new PrepRequestProcessor(this, sync);
        prep.start();
        firstProcessor = prep;
    }

    private static @Nullable String createdPath(Request request) {
        Object txn = request.getTxn();
        if (txn instanceof CreateTxn create) {
            return create.getPath();
        }
        if (txn instanceof CreateTTLTxn create) {
            return create.getPath();
        }
        if (txn instanceof CreateContainerTxn create) {
            return create.getPath();
        }
        if (txn instanceof MultiTxn multi) {
            // A transaction counts as a create of its first created path (e.g. a queue's put).
            for (Txn t : multi.getTxns()) {
                if (t.getType() == OpCode.create || t.getType() == OpCode.create2) {
                    CreateTxn create = new CreateTxn();
                    try {
                        ByteBufferInputStream.byteBuffer2Record(ByteBuffer.wrap(t.getData()), create);
                    } catch (IOException e) {
                        return null;
                    }
                    return create.getPath();
                }
            }
        }
        return null;
    }

    /**
     * Called by the connection layer (NIO worker threads, concurrently) for every packet a client sends after
     * its session handshake. Pings are not counted; everything else is, including auth and closeSession.
     */
    @Override
    public void processPacket(ServerCnxn cnxn, RequestHeader h, RequestRecord request) throws IOException {
        if (h.getType() != OpCode.ping) {
            counter.record(h.getType());
        }
        if ((h.getType() == OpCode.delete || h.getType() == OpCode.multi)
                && faults.refusesDeleteOf(cnxn.getSessionId())) {
            // Not applied: the connection closes with the request unread, as if it had died on the way.
            cnxn.close(ServerCnxn.DisconnectReason.CONNECTION_CLOSE_FORCED);
            return;
        }
        super.processPacket(cnxn, h, request);
    }

    /** The head of the request-processor chain; {@code null} until {@link #startup()} has run. */
    RequestProcessor firstRequestProcessor() {
        return firstProcessor;
    }
}
