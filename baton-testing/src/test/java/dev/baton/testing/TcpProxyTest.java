package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The proxy on its own, in front of a one-byte echo server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpProxyTest {

    private ServerSocket echo;
    private TcpProxy proxy;

    @BeforeEach
    void startEchoServerAndProxy() throws IOException {
        echo = new ServerSocket(0, 50, PortAllocator.LOOPBACK);
        Thread acceptor = new Thread(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    Thread t = new Thread(() -> echoAll(s), "echo");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "echo-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        proxy = TcpProxy.start("test", echo.getLocalPort());
    }

    @AfterEach
    void close() throws IOException {
        proxy.close();
        echo.close();
    }

    @Test
    void forwardsBothWays() throws IOException {
        try (Socket s = connect()) {
            assertThat(roundTrip(s, 'a')).isEqualTo('a');
            assertThat(proxy.connectionCount()).isEqualTo(1);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> proxy.connectionCount() == 0);
    }

    @Test
    void dropClosesOpenConnectionsAtOnceAndRefusesNewOnes() throws IOException {
        try (Socket s = connect()) {
            assertThat(roundTrip(s, 'a')).isEqualTo('a');

            proxy.partition(TcpProxy.Mode.DROP);

            assertThat(s.getInputStream().read()).isEqualTo(-1); // noticed at once, not by timeout
        }
        try (Socket s = connect()) {
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
        proxy.heal();
        try (Socket s = connect()) {
            assertThat(roundTrip(s, 'b')).isEqualTo('b');
        }
    }

    @Test
    void blackholeDiscardsSilentlyAndHealClosesConnectionsThatLostBytes() throws IOException {
        try (Socket old = connect(); Socket other = connect()) {
            assertThat(roundTrip(old, 'a')).isEqualTo('a');

            proxy.partition(TcpProxy.Mode.BLACKHOLE);

            old.getOutputStream().write('x');
            old.setSoTimeout(500);
            assertThatThrownBy(() -> old.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            try (Socket fresh = connect()) { // accepted, never forwarded
                fresh.getOutputStream().write('y');
                fresh.setSoTimeout(500);
                assertThatThrownBy(() -> fresh.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            }

            proxy.heal();

            old.setSoTimeout(10_000);
            assertThat(old.getInputStream().read()).isEqualTo(-1); // a stream with a hole does not go on
            assertThat(roundTrip(other, 'c')).isEqualTo('c');      // a connection that lost nothing does
        }
        try (Socket s = connect()) {
            assertThat(roundTrip(s, 'd')).isEqualTo('d');
        }
    }

    @Test
    void latencyDelaysEachDirection() throws IOException {
        try (Socket s = connect()) {
            roundTrip(s, 'w'); // warm up
            proxy.latency(Duration.ofMillis(200));
            long start = System.nanoTime();
            assertThat(roundTrip(s, 'a')).isEqualTo('a');
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(elapsedMs).isGreaterThanOrEqualTo(380); // 200 ms each way
            proxy.latency(Duration.ZERO);
            assertThat(proxy.latency()).isZero();
        }
    }

    @Test
    void targetDownClosesTheAcceptedConnection() throws IOException {
        int nobodyListens = PortAllocator.allocate(); // checked free, below the ephemeral range
        try (TcpProxy toNowhere = TcpProxy.start("nowhere", nobodyListens); Socket s = new Socket()) {
            s.connect(new InetSocketAddress(PortAllocator.LOOPBACK, toNowhere.port()), 5_000);
            s.setSoTimeout(10_000);
            assertThat(s.getInputStream().read()).isEqualTo(-1);
            assertThat(toNowhere.connectionCount()).isZero();
        }
    }

    @Test
    void closeEndsEverythingAndIsIdempotent() throws IOException {
        try (Socket s = connect()) {
            roundTrip(s, 'a');
            proxy.close();
            proxy.close();
            s.setSoTimeout(10_000);
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
        assertThat(proxy.isClosed()).isTrue();
        assertThatThrownBy(() -> proxy.partition(TcpProxy.Mode.DROP)).isInstanceOf(IllegalStateException.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().startsWith("baton-proxy-test-") && t.isAlive()));
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(PortAllocator.LOOPBACK, proxy.port()), 5_000);
        s.setSoTimeout(10_000);
        return s;
    }

    private static char roundTrip(Socket s, char c) throws IOException {
        s.getOutputStream().write(c);
        s.getOutputStream().flush();
        return (char) s.getInputStream().read();
    }

    private static void echoAll(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            for (int b; (b = in.read()) >= 0; ) {
                out.write(b);
                out.flush();
            }
        } catch (IOException e) {
            // Closed.
        }
    }
}
