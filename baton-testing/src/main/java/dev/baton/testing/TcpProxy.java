package dev.baton.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small TCP proxy inside the test JVM, from a port of its own on 127.0.0.1 to a target port on 127.0.0.1,
 * that can cut, black-hole and slow the traffic: the kit's network fault injector.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.start(serverPort)) {
 *     ZooKeeper zk = new ZooKeeper(proxy.address(), 10_000, watcher);
 *     proxy.partition(TcpProxy.Mode.BLACKHOLE);   // the client notices only by its read timeout
 *     proxy.heal();
 *     proxy.latency(Duration.ofMillis(200));       // every chunk, both ways, arrives 200 ms late
 * }
 * }</pre>
 *
 * <h2>Faults</h2>
 * <ul>
 *   <li>{@link Mode#DROP}: every open connection is closed at once, and a new one is accepted and closed at
 *       once, so both ends notice immediately (as with a refused connection or a reset).</li>
 *   <li>{@link Mode#BLACKHOLE}: connections stay open but every byte, both ways, is silently discarded; new
 *       connections are accepted and never forwarded. Neither end notices anything but silence, so each
 *       finds out only by its own timeout. A connection that lost bytes is closed when the partition heals,
 *       since a TCP stream with a hole in it cannot go on (as after a partition longer than TCP's own
 *       retransmission); ends that closed their side during the partition are not told until then.</li>
 *   <li>{@link #latency(Duration)}: each chunk of bytes is forwarded that long after it was read, in both
 *       directions; order is kept and throughput is not limited.</li>
 * </ul>
 * If the target refuses a connection (its server is down), the proxy closes the accepted one at once.
 *
 * <p>Threads: one acceptor, and four per connection (a reader and a writer each way), all daemon threads named
 * {@code baton-proxy-<name>-...}; they end with the connection or the proxy.
 *
 * <p>Thread-safety: all methods are safe to call from any thread.
 */
public final class TcpProxy implements AutoCloseable {

    /** How a partition treats traffic; see the class comment. */
    public enum Mode {
        /** Close every connection and refuse new ones by closing them at once: noticed immediately. */
        DROP,
        /** Keep connections open but discard every byte: noticed only by timeout. */
        BLACKHOLE
    }

    /**
     * Produces the first bytes to forward from the connecting side to the target, reading exactly the bytes
     * it replaces from {@code in}. Lets the kit rewrite an address announced in a protocol's first message.
     */
    @FunctionalInterface
    interface HandshakeRewriter {
        /** Returns the bytes to forward in place of those read, or null to drop the connection. */
        byte @Nullable [] rewrite(InputStream in) throws IOException;
    }

    private static final Logger LOG = LoggerFactory.getLogger(TcpProxy.class);
    private static final int CONNECT_TIMEOUT_MS = 5_000;
    private static final int BUFFER_SIZE = 16 * 1024;
    private static final AtomicInteger PROXY_NUMBERS = new AtomicInteger();

    private final String name;
    private final int targetPort;
    private final ServerSocket serverSocket;
    /** Rewrites the first bytes from the client; null to forward them as they are. */
    private final @Nullable HandshakeRewriter rewriter;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicInteger linkNumbers = new AtomicInteger();
    private final Object modeLock = new Object();

    /** The partition; null while traffic flows. */
    private volatile @Nullable Mode mode;
    private volatile long latencyNanos;
    private volatile boolean closed;

    private TcpProxy(String name, int targetPort, @Nullable HandshakeRewriter rewriter) {
        this.name = name;
        this.targetPort = targetPort;
        this.rewriter = rewriter;
        try {
            this.serverSocket = new ServerSocket();
            serverSocket.setReuseAddress(true);
            serverSocket.bind(new InetSocketAddress(PortAllocator.LOOPBACK, 0), 128);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a proxy port on 127.0.0.1", e);
        }
        Thread acceptor = new Thread(this::acceptLoop, "baton-proxy-" + name + "-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Starts a proxy to {@code 127.0.0.1:targetPort} on a free port; it forwards at once.
     *
     * @param targetPort the port to forward to on 127.0.0.1
     * @return the running proxy
     * @throws IllegalArgumentException if the port is out of range
     * @throws UncheckedIOException if no port can be bound
     */
    public static TcpProxy start(int targetPort) {
        return start("p" + PROXY_NUMBERS.incrementAndGet(), targetPort);
    }

    /**
     * Starts a named proxy to {@code 127.0.0.1:targetPort} on a free port; the name appears in thread names
     * and {@link #toString()}.
     *
     * @param name a short name, e.g. {@code "client-1"}
     * @param targetPort the port to forward to on 127.0.0.1
     * @return the running proxy
     * @throws IllegalArgumentException if the port is out of range
     * @throws UncheckedIOException if no port can be bound
     */
    public static TcpProxy start(String name, int targetPort) {
        return start(name, targetPort, null);
    }

    static TcpProxy start(String name, int targetPort, @Nullable HandshakeRewriter rewriter) {
        Objects.requireNonNull(name, "name");
        if (targetPort <= 0 || targetPort > 65_535) {
            throw new IllegalArgumentException("targetPort must be within 1..65535: " + targetPort);
        }
        return new TcpProxy(name, targetPort, rewriter);
    }

    /**
     * The proxy's own port on 127.0.0.1, fixed for its life.
     *
     * @return the port clients connect to
     */
    public int port() {
        return serverSocket.getLocalPort();
    }

    /**
     * The proxy's address as {@code "127.0.0.1:<port>"}, ready for a connect string.
     *
     * @return the address
     */
    public String address() {
        return "127.0.0.1:" + port();
    }

    /**
     * The port the proxy forwards to on 127.0.0.1.
     *
     * @return the target port
     */
    public int targetPort() {
        return targetPort;
    }

    /**
     * Starts a partition, or changes the mode of the current one. {@link Mode#DROP} closes every open
     * connection before returning.
     *
     * @param mode how to treat traffic until {@link #heal()}
     * @throws IllegalStateException if the proxy is closed
     */
    public void partition(Mode mode) {
        Objects.requireNonNull(mode, "mode");
        requireOpen();
        synchronized (modeLock) {
            this.mode = mode;
        }
        if (mode == Mode.DROP) {
            links.forEach(Link::close);
        }
        LOG.debug("{}: partition {}", this, mode);
    }

    /**
     * Ends the partition: new connections are forwarded again; connections that lost bytes to a black hole are
     * closed (see the class comment), the others carry on. Does nothing if there is no partition.
     */
    public void heal() {
        synchronized (modeLock) {
            mode = null;
        }
        links.stream().filter(link -> link.tainted.get()).forEach(Link::close);
        LOG.debug("{}: healed", this);
    }

    /**
     * The current partition mode.
     *
     * @return the mode, or empty if traffic flows
     */
    public Optional<Mode> partitionMode() {
        return Optional.ofNullable(mode);
    }

    /**
     * Delays every chunk of bytes, both ways, by {@code latency} from now on; {@link Duration#ZERO} removes the
     * delay. Chunks already waiting are held until the new latency has passed since they were read; order is
     * always kept.
     *
     * @param latency a delay of zero or more
     * @throws IllegalArgumentException if negative
     */
    public void latency(Duration latency) {
        Objects.requireNonNull(latency, "latency");
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative: " + latency);
        }
        latencyNanos = latency.toNanos();
    }

    /**
     * The delay added to every chunk.
     *
     * @return the latency, {@link Duration#ZERO} by default
     */
    public Duration latency() {
        return Duration.ofNanos(latencyNanos);
    }

    /**
     * The number of client connections the proxy holds open now, forwarded or black-holed.
     *
     * @return the count
     */
    public int connectionCount() {
        return links.size();
    }

    /**
     * Closes the proxy's port and every connection. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        try {
            serverSocket.close();
        } catch (IOException e) {
            LOG.debug("{}: error closing the server socket", this, e);
        }
        links.forEach(Link::close);
    }

    /**
     * Whether {@link #close()} was called.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return closed;
    }

    /** The name, the addresses and the state, for test output. */
    @Override
    public String toString() {
        Mode m = mode;
        return "TcpProxy[" + name + " " + port() + "->" + targetPort + (m == null ? "" : " " + m)
                + (closed ? " closed" : "") + "]";
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = serverSocket.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("{}: accept failed", this, e);
                }
                return;
            }
            try {
                accepted(client);
            } catch (RuntimeException e) {
                LOG.warn("{}: cannot handle a connection", this, e);
                closeQuietly(client);
            }
        }
    }

    private void accepted(Socket client) {
        Mode m = mode;
        if (m == Mode.DROP || closed) {
            closeQuietly(client);
            return;
        }
        Socket target = null;
        if (m == null) {
            target = new Socket();
            try {
                target.setTcpNoDelay(true);
                target.connect(new InetSocketAddress(PortAllocator.LOOPBACK, targetPort), CONNECT_TIMEOUT_MS);
            } catch (IOException e) {
                LOG.debug("{}: target refused: {}", this, e.toString());
                closeQuietly(target);
                closeQuietly(client);
                return;
            }
        }
        try {
            client.setTcpNoDelay(true);
        } catch (SocketException e) {
            // Not important.
        }
        Link link = new Link(linkNumbers.incrementAndGet(), client, target);
        links.add(link);
        if (closed || mode == Mode.DROP) { // changed while connecting
            link.close();
            return;
        }
        link.start();
    }

    private static void closeQuietly(@Nullable Socket socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // Already broken.
            }
        }
    }

    /** A chunk of bytes read at {@code readAt}, or the end of the stream when {@code bytes} is null. */
    // The bytes read from a socket, passed on as they are, never compared or hashed.
    @SuppressWarnings("ArrayRecordComponent")
    private record Chunk(long readAt, byte @Nullable [] bytes) {
        static final Chunk END = new Chunk(0, null);
    }

    /** One accepted connection and, unless it was accepted during a black hole, its target connection. */
    private final class Link {

        final int number;
        final Socket client;
        final @Nullable Socket target; // null: accepted in a black hole, never forwarded
        final AtomicBoolean tainted = new AtomicBoolean();
        final AtomicBoolean closedLink = new AtomicBoolean();
        final List<Thread> threads = new ArrayList<>();

        Link(int number, Socket client, @Nullable Socket target) {
            this.number = number;
            this.client = client;
            this.target = target;
            if (target == null) {
                tainted.set(true);
            }
        }

        void start() {
            Socket to = target;
            if (to == null) {
                threads.add(thread("discard", () -> discardAll(client)));
            } else {
                BlockingQueue<Chunk> up = new LinkedBlockingQueue<>();
                BlockingQueue<Chunk> down = new LinkedBlockingQueue<>();
                threads.add(thread("up-read", () -> read(client, up, rewriter)));
                threads.add(thread("up-write", () -> write(up, to)));
                threads.add(thread("down-read", () -> read(to, down, null)));
                threads.add(thread("down-write", () -> write(down, client)));
            }
            threads.forEach(Thread::start);
        }

        private Thread thread(String role, Runnable body) {
            Thread t = new Thread(body, "baton-proxy-" + name + "-" + number + "-" + role);
            t.setDaemon(true);
            return t;
        }

        private void discardAll(Socket socket) {
            byte[] buffer = new byte[BUFFER_SIZE];
            try {
                InputStream in = socket.getInputStream();
                while (in.read(buffer) >= 0) {
                    // Black hole.
                }
            } catch (IOException e) {
                // Closed.
            }
            // The peer closed its side; it is not told anything until the partition heals.
        }

        private void read(Socket from, BlockingQueue<Chunk> queue, @Nullable HandshakeRewriter firstBytes) {
            byte[] buffer = new byte[BUFFER_SIZE];
            try {
                InputStream in = from.getInputStream();
                if (firstBytes != null) {
                    byte[] first = firstBytes.rewrite(in);
                    if (first == null) {
                        close();
                        return;
                    }
                    offer(queue, first);
                }
                while (true) {
                    int n = in.read(buffer);
                    if (n < 0) {
                        break;
                    }
                    offer(queue, Arrays.copyOf(buffer, n));
                }
            } catch (IOException e) {
                // Reset or closed: same as the end of the stream.
            }
            if (tainted.get() || mode == Mode.BLACKHOLE) {
                // In a black hole the other end must not learn of the close; heal() closes the link.
                tainted.set(true);
                if (mode != Mode.BLACKHOLE) { // healed meanwhile: heal() may have missed this link
                    close();
                }
                return;
            }
            queue.add(Chunk.END);
        }

        private void offer(BlockingQueue<Chunk> queue, byte[] bytes) {
            if (mode == Mode.BLACKHOLE) {
                tainted.set(true);
                return;
            }
            queue.add(new Chunk(System.nanoTime(), bytes));
        }

        private void write(BlockingQueue<Chunk> queue, Socket to) {
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    Chunk chunk = queue.take();
                    byte[] bytes = chunk.bytes();
                    if (bytes == null) {
                        break;
                    }
                    awaitDue(chunk);
                    if (closedLink.get()) {
                        return;
                    }
                    if (mode == Mode.BLACKHOLE) {
                        tainted.set(true);
                        continue;
                    }
                    out.write(bytes);
                    out.flush();
                }
            } catch (IOException e) {
                // The destination is gone.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (!tainted.get() && mode != Mode.BLACKHOLE) {
                close();
            }
        }

        private void awaitDue(Chunk chunk) throws InterruptedException {
            while (!closedLink.get()) {
                long wait = chunk.readAt() + latencyNanos - System.nanoTime();
                if (wait <= 0) {
                    return;
                }
                LockSupport.parkNanos(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(50)));
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        }

        void close() {
            if (!closedLink.compareAndSet(false, true)) {
                return;
            }
            links.remove(this);
            closeQuietly(client);
            closeQuietly(target);
            for (Thread t : threads) {
                if (t != Thread.currentThread()) {
                    t.interrupt(); // wakes writers blocked on their queue
                }
            }
        }
    }
}
