package dev.baton.recipes.docs;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** What the README's examples print to {@code System.out}, captured while open (from any thread). */
final class StdOut implements AutoCloseable {
    private final PrintStream original = System.out;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    private StdOut() {
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    }

    static StdOut capture() {
        return new StdOut();
    }

    String text() {
        synchronized (bytes) {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    List<String> lines() {
        return text().lines().toList();
    }

    @Override
    public void close() {
        System.setOut(original);
    }
}
