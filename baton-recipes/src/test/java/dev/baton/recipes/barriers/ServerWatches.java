package dev.baton.recipes.barriers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The number of watches the server holds, from the {@code wchs} four-letter word (loopback only). */
final class ServerWatches {
    private static final Pattern TOTAL = Pattern.compile("Total watches:(\\d+)");

    private ServerWatches() {
    }

    static int total(int port) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write("wchs".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String reply = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            Matcher m = TOTAL.matcher(reply);
            if (!m.find()) {
                throw new IOException("unexpected wchs reply: " + reply);
            }
            return Integer.parseInt(m.group(1));
        }
    }
}
