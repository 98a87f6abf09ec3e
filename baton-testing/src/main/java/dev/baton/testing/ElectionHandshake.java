package dev.baton.testing;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Rewrites the first message of a ZooKeeper leader-election connection as it passes through the proxy of a
 * peer link.
 *
 * <p>Why: a server announces its own election address in that message ({@code QuorumCnxManager}: protocol
 * version, server id, "host:port"), and a server with a higher id that receives the connection drops it and
 * connects back to the announced address, not to the one in its configuration. The announced address is the
 * sender's real port, which would bypass the proxies and make a partition leak. The proxy of link
 * {@code i -> j} therefore replaces it with the address of the proxy of link {@code j -> i}.
 */
final class ElectionHandshake implements TcpProxy.HandshakeRewriter {

    /** Largest address string accepted; ZooKeeper's own limit is larger, but an address is short. */
    private static final int MAX_ADDRESS_BYTES = 4096;

    private final Supplier<String> returnAddress;

    /** @param returnAddress the "127.0.0.1:port" the receiver must use to connect back to the sender */
    ElectionHandshake(Supplier<String> returnAddress) {
        this.returnAddress = returnAddress;
    }

    @Override
    public byte @Nullable [] rewrite(InputStream in) throws IOException {
        DataInputStream din = new DataInputStream(in);
        long protocolVersion = din.readLong();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeLong(protocolVersion);
        if (protocolVersion >= 0) {
            return bytes.toByteArray(); // the oldest protocol: just the server id, no address
        }
        long sid = din.readLong();
        int length = din.readInt();
        if (length <= 0 || length > MAX_ADDRESS_BYTES) {
            return null; // not the protocol we know: drop the connection rather than forward garbage
        }
        din.readFully(new byte[length]);
        byte[] address = returnAddress.get().getBytes(StandardCharsets.UTF_8);
        out.writeLong(sid);
        out.writeInt(address.length);
        out.write(address);
        return bytes.toByteArray();
    }
}
