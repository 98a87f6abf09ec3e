package dev.baton.testing;

import static dev.baton.testing.History.LINE_PREFIX;
import static dev.baton.testing.History.NO_TOKEN;

import dev.baton.testing.History.Event;
import dev.baton.testing.History.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text forms of a {@link History.Event}: the machine line a driver process prints and its parent reads back
 * ({@link Event#toLine()}, {@link History#parseLine(String)}, {@link History#dump(Path)}), and the human-readable
 * listing of a history in test output ({@link Event#toString()}, {@link History#format(Collection, Set)}).
 */
final class EventLines {

    private EventLines() {
    }

    /** Encodes {@code e} as {@link Event#toLine()} documents it. */
    static String encode(Event e) {
        return LINE_PREFIX + "seq=" + e.seq() + " t=" + e.nanos() + " kind=" + e.kind() + " client=" + enc(e.client())
                + " name=" + enc(e.name()) + " token=" + (e.hasToken() ? Long.toString(e.token()) : "-")
                + " detail=" + enc(e.detail());
    }

    /** Decodes a line as {@link History#parseLine(String)} documents it. */
    static Optional<Event> decode(String line) {
        Objects.requireNonNull(line, "line");
        int at = line.indexOf(LINE_PREFIX);
        if (at < 0) {
            return Optional.empty();
        }
        Map<String, String> fields = new HashMap<>();
        for (String part : line.substring(at + LINE_PREFIX.length()).strip().split(" +", -1)) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("malformed event line (field '" + part + "'): " + line);
            }
            fields.put(part.substring(0, eq), part.substring(eq + 1));
        }
        try {
            String token = require(fields, "token");
            return Optional.of(new Event(
                    Long.parseLong(require(fields, "seq")),
                    Long.parseLong(require(fields, "t")),
                    dec(require(fields, "client")),
                    Kind.valueOf(require(fields, "kind")),
                    dec(require(fields, "name")),
                    token.equals("-") ? NO_TOKEN : Long.parseLong(token),
                    dec(require(fields, "detail"))));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed event line (" + e.getMessage() + "): " + line, e);
        }
    }

    /** Writes the {@link #encode encoded} events to {@code file}, one per line, creating or replacing it. */
    static void write(Path file, Collection<Event> events) {
        StringBuilder b = new StringBuilder();
        for (Event e : events) {
            b.append(encode(e)).append('\n');
        }
        try {
            Files.writeString(file, b);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write history to " + file, e);
        }
    }

    /** The human-readable one-line form of {@code e}: time, client, kind, name, token, detail. */
    static String describe(Event e) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("#%-5d %10.3f ms  %-10s %-15s", e.seq(), e.nanos() / 1e6,
                e.client().isEmpty() ? "-" : e.client(), e.kind()));
        if (!e.name().isEmpty()) {
            b.append(' ').append(e.name());
        }
        if (e.hasToken()) {
            b.append(" token=").append(e.token());
        }
        if (!e.detail().isEmpty()) {
            b.append("  (").append(e.detail()).append(')');
        }
        return b.toString();
    }

    /** A listed line: marker, sequence number, time in ms, client, kind, and the rest (name, token, detail). */
    private static final Pattern LISTED = Pattern.compile(
            "^(?:>> |   )#(\\d+)\\s+(-?\\d+\\.\\d{3}) ms  (\\S+)\\s+([A-Z_]+)(?:\\s+(.*))?$");

    /** Reads a line of {@link #format} back, as {@link History#parseListed(String)} documents it. */
    static Optional<Event> parseListed(String line) {
        Matcher m = LISTED.matcher(line);
        if (!m.matches()) {
            return Optional.empty();
        }
        String rest = m.group(5) == null ? "" : m.group(5);
        String name = "";
        if (!rest.startsWith("(")) {
            int space = rest.indexOf(' ');
            name = space < 0 ? rest : rest.substring(0, space);
            rest = space < 0 ? "" : rest.substring(space + 1);
        }
        long token = NO_TOKEN;
        if (rest.startsWith("token=")) {
            int space = rest.indexOf(' ');
            token = Long.parseLong(space < 0 ? rest.substring(6) : rest.substring(6, space));
            rest = space < 0 ? "" : rest.substring(space + 1);
        }
        rest = rest.strip();
        String detail = rest.startsWith("(") && rest.endsWith(")") ? rest.substring(1, rest.length() - 1) : "";
        try {
            return Optional.of(new Event(Long.parseLong(m.group(1)), new BigDecimal(m.group(2)).movePointRight(6)
                    .longValueExact(), m.group(3).equals("-") ? "" : m.group(3), Kind.valueOf(m.group(4)), name,
                    token, detail));
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalArgumentException("malformed listed event (" + e.getMessage() + "): " + line, e);
        }
    }

    /** Lists events as {@link History#format(Collection, Set)} documents it. */
    static String format(Collection<Event> events, Set<Long> marked) {
        StringBuilder b = new StringBuilder();
        for (Event e : events) {
            b.append(marked.contains(e.seq()) ? ">> " : "   ").append(describe(e)).append('\n');
        }
        return b.toString();
    }

    private static String require(Map<String, String> fields, String key) {
        String v = fields.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing field '" + key + "'");
        }
        return v;
    }

    private static String enc(String s) {
        return s.isEmpty() ? "" : URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String dec(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
