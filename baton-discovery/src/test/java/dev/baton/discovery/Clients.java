package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryNTimes;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;

/** Started, connected Baton and Curator clients for one test, closed together; and server-side counts. */
final class Clients implements AutoCloseable {
    private static final Pattern TOTAL_WATCHES = Pattern.compile("Total watches:(\\d+)");

    private final String connectString;
    private final List<AutoCloseable> open = new ArrayList<>();

    Clients(String connectString) {
        this.connectString = connectString;
    }

    BatonClient baton() throws InterruptedException {
        return baton(Duration.ofSeconds(10));
    }

    BatonClient baton(Duration sessionTimeout) throws InterruptedException {
        BatonClient client = unstarted(connectString, sessionTimeout);
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    /** A client not started yet; closed with the others. */
    BatonClient unstarted(String connect, Duration sessionTimeout) {
        BatonClient client = Baton.builder().connectString(connect).sessionTimeout(sessionTimeout)
                .connectionTimeout(Duration.ofSeconds(3)).retryPolicy(new RetryNTimes(3, 100))
                .ensembleTracker(false).build();
        open.add(client);
        return client;
    }

    CuratorFramework curator() throws InterruptedException {
        return curator(connectString, Duration.ofSeconds(10));
    }

    CuratorFramework curator(String connect, Duration sessionTimeout) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(connect)
                .sessionTimeoutMs((int) sessionTimeout.toMillis()).connectionTimeoutMs(3000)
                .retryPolicy(new org.apache.curator.retry.RetryNTimes(3, 100)).ensembleTracker(false).build();
        open.add(client);
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    /** Closes {@code closeable} with the clients (before them: added later, closed first). */
    <T extends AutoCloseable> T add(T closeable) {
        open.add(closeable);
        return closeable;
    }

    @Override
    public void close() {
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) {
                // closing what a failed test left: nothing more to do
            }
        }
        open.clear();
    }

    /** The number of watches the server at {@code port} holds ({@code wchs}). */
    static int serverWatches(int port) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write("wchs".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String reply = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            Matcher m = TOTAL_WATCHES.matcher(reply);
            if (!m.find()) {
                throw new IOException("unexpected wchs reply: " + reply);
            }
            return Integer.parseInt(m.group(1));
        }
    }
}
