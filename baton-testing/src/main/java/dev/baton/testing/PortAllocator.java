package dev.baton.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Hands out free TCP ports on 127.0.0.1 for servers that run in other processes, which must be told their
 * port in advance.
 *
 * <p>Ports come from below the operating system's ephemeral range when it is known (Linux:
 * {@code /proc/sys/net/ipv4/ip_local_port_range}), so that an outgoing connection made while a server is down
 * (a proxy, a client, another test) can never take the port that server needs when it restarts. A candidate
 * is checked by binding it, and never handed out twice in this JVM. Another JVM may still race for the same
 * port; callers retry a start that fails with "Address already in use".
 */
final class PortAllocator {

    /** 127.0.0.1 itself (never {@code ::1}): the only address the kit binds or connects to. */
    static final InetAddress LOOPBACK = loopback();

    private static final int LOWEST = 10_000;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
    private static final int EPHEMERAL_LOW = ephemeralLow();

    private PortAllocator() {
    }

    /** A port that was free a moment ago and that this JVM has not handed out before. */
    static int allocate() {
        if (EPHEMERAL_LOW - LOWEST >= 1_000) {
            for (int attempt = 0; attempt < 1_000; attempt++) {
                int port = ThreadLocalRandom.current().nextInt(LOWEST, EPHEMERAL_LOW);
                if (!HANDED_OUT.contains(port) && isFree(port) && HANDED_OUT.add(port)) {
                    return port;
                }
            }
        }
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = bindAnyPort();
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port found on 127.0.0.1");
    }

    /** True if a server socket can bind the port on 127.0.0.1 now. */
    static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(LOOPBACK, port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int bindAnyPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, LOOPBACK)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a port on 127.0.0.1", e);
        }
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress("127.0.0.1", new byte[] {127, 0, 0, 1});
        } catch (IOException e) {
            throw new UncheckedIOException(e); // not reached: a 4-byte address is always valid
        }
    }

    private static int ephemeralLow() {
        try {
            // readAllLines, not readString: /proc files report size 0 and readString trusts the size.
            String[] range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0)
                    .trim().split("\\s+", -1);
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException e) {
            return 0; // unknown: use the operating system's choice
        }
    }
}
