package dev.baton.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs.OpCode;

/**
 * A loopback TCP proxy in front of the server that reads the ZooKeeper wire protocol as it forwards it, and counts
 * the write requests the server answered with an error ({@code NodeExists}, {@code NoNode}, {@code BadVersion},
 * ...). The embedded server counts requests but not their outcome, and neither library can be hooked the same
 * way (Baton has no ZooKeeper factory), so the count is taken on the wire, identically for every library.
 *
 * <p>Each direction is a stream of length-prefixed frames; the first frame each way is the session handshake.
 * A request frame starts with {@code xid, type} and, for a write, the path; a reply frame starts with
 * {@code xid, zxid, err}. A write whose reply has {@code err != 0} failed. A {@code multi} reply carries
 * {@code err = 0} and one result per op; when the transaction failed, every result is an error result
 * ({@code type -1}, then its code) and the first non-zero code is the cause. Failures are keyed
 * "{@code <op> <path kind> <code>}", the path kind given by the scenario ("ready", "member", ...); for a multi,
 * the kind of its first op's path.
 *
 * <p>Forwarding a frame at a time adds a hop to every request of every library alike.
 */
final class FailedWriteCounter implements AutoCloseable {
    private final ServerSocket listener;
    private final int targetPort;
    private final Function<String, String> pathKind;
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /**
     * Starts listening on a free loopback port.
     *
     * @param targetPort the server's client port on 127.0.0.1
     * @param pathKind names the kind of a written path, for the failure keys
     */
    FailedWriteCounter(int targetPort, Function<String, String> pathKind) throws IOException {
        this.targetPort = targetPort;
        this.pathKind = pathKind;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "baton-bench-wire-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The proxy's address, for {@link BenchClient#open}. */
    String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** Failed writes so far by "{@code <op> <path kind> <code>}", in name order. */
    Map<String, Long> failures() {
        Map<String, Long> out = new TreeMap<>();
        failures.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                Map<Integer, String[]> pending = new ConcurrentHashMap<>();
                start(() -> pump(client, server, true, pending));
                start(() -> pump(server, client, false, pending));
            } catch (IOException e) {
                if (!closed) {
                    continue;
                }
                return;
            }
        }
    }

    private static void start(Runnable r) {
        Thread t = new Thread(r, "baton-bench-wire");
        t.setDaemon(true);
        t.start();
    }

    /** Forwards frames from {@code from} to {@code to}, noting writes (requests) or failed writes (replies). */
    private void pump(Socket from, Socket to, boolean requests, Map<Integer, String[]> pending) {
        try (InputStream rawIn = from.getInputStream(); OutputStream rawOut = to.getOutputStream()) {
            DataInputStream in = new DataInputStream(rawIn);
            DataOutputStream out = new DataOutputStream(rawOut);
            boolean handshake = true;
            while (true) {
                int length = in.readInt();
                byte[] frame = new byte[length];
                in.readFully(frame);
                if (!handshake) {
                    if (requests) {
                        request(ByteBuffer.wrap(frame), pending);
                    } else {
                        reply(ByteBuffer.wrap(frame), pending);
                    }
                }
                handshake = false;
                out.writeInt(length);
                out.write(frame);
                out.flush();
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static boolean isWrite(int type) {
        return switch (type) {
            case OpCode.create, OpCode.create2, OpCode.createContainer, OpCode.createTTL, OpCode.delete,
                    OpCode.setData, OpCode.check, OpCode.multi -> true;
            default -> false;
        };
    }

    private static String opName(int type) {
        return switch (type) {
            case OpCode.create, OpCode.create2, OpCode.createTTL -> "create";
            case OpCode.createContainer -> "createContainer";
            case OpCode.delete -> "delete";
            case OpCode.setData -> "setData";
            case OpCode.check -> "check";
            case OpCode.multi -> "multi";
            default -> "op" + type;
        };
    }

    private void request(ByteBuffer frame, Map<Integer, String[]> pending) {
        int xid = frame.getInt();
        int type = frame.getInt();
        if (!isWrite(type)) {
            return;
        }
        if (type == OpCode.multi) {
            frame.position(frame.position() + 9); // the first op's header: type, done, err
        }
        int n = frame.getInt();
        String path = n < 0 ? "" : new String(frame.array(), frame.arrayOffset() + frame.position(), n,
                StandardCharsets.UTF_8);
        pending.put(xid, new String[] {opName(type), path});
    }

    private void reply(ByteBuffer frame, Map<Integer, String[]> pending) {
        int xid = frame.getInt();
        frame.getLong(); // zxid
        int err = frame.getInt();
        String[] write = pending.remove(xid);
        if (write == null) {
            return;
        }
        if (err == 0 && write[0].equals("multi") && frame.remaining() >= 9) {
            // Results: (type, done, err) headers; a failed transaction answers only error results (type -1).
            while (frame.remaining() >= 13) {
                int type = frame.getInt();
                boolean done = frame.get() != 0;
                frame.getInt();
                if (done || type != -1) {
                    break;
                }
                int code = frame.getInt();
                if (code != 0) {
                    err = code;
                    break;
                }
            }
        }
        if (err != 0) {
            KeeperException.Code code = KeeperException.Code.get(err);
            String key = write[0] + " " + pathKind.apply(write[1]) + " "
                    + (code == null ? Integer.toString(err) : code.name());
            failures.computeIfAbsent(key, k -> new LongAdder()).increment();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // closing anyway
        }
        sockets.forEach(FailedWriteCounter::closeQuietly);
    }
}
