package dev.baton.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * ZooKeeper's four-letter-word commands ({@code ruok}, {@code srvr}, ...) sent straight to a server's client
 * port on 127.0.0.1, never through a proxy, so they tell the truth about the server.
 */
final class FourLetterWords {

    /** What a server answers to {@code srvr} when it is up but not part of a working quorum. */
    static final String NOT_SERVING = "not currently serving requests";

    private FourLetterWords() {
    }

    /**
     * Sends {@code command} and reads the whole answer.
     *
     * @return the answer, or empty if the server did not answer within {@code timeoutMs} (down, paused, busy)
     */
    static Optional<String> send(int port, String command, int timeoutMs) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(PortAllocator.LOOPBACK, port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            socket.getOutputStream().write(command.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            for (int n; (n = in.read(buffer)) >= 0; ) {
                answer.write(buffer, 0, n);
            }
            return Optional.of(answer.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The server's role from a {@code srvr} answer: "leader", "follower", ...; empty if not serving. */
    static Optional<String> mode(String srvr) {
        for (String line : srvr.split("\n", -1)) {
            if (line.startsWith("Mode: ")) {
                return Optional.of(line.substring("Mode: ".length()).trim());
            }
        }
        return Optional.empty();
    }

    /** The server's version from a {@code srvr} answer ({@code 3.9.5} of {@code 3.9.5-<hash>, built on ...}). */
    static Optional<String> version(String srvr) {
        for (String line : srvr.split("\n", -1)) {
            if (line.startsWith("Zookeeper version: ")) {
                return Optional.of(line.substring("Zookeeper version: ".length()).split("[- ,]", 2)[0].trim());
            }
        }
        return Optional.empty();
    }

    /** The epoch (high 32 bits of the last zxid) from a {@code srvr} answer; -1 if absent. */
    static long epoch(String srvr) {
        for (String line : srvr.split("\n", -1)) {
            if (line.startsWith("Zxid: 0x")) {
                try {
                    return Long.parseUnsignedLong(line.substring("Zxid: 0x".length()).trim(), 16) >>> 32;
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
