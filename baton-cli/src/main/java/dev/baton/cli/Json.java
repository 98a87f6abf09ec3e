package dev.baton.cli;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Writes JSON (RFC 8259) from maps, lists, strings, integral numbers, booleans and nulls, indented by two
 * spaces, for {@code baton inspect --json}. The CLI has no JSON library and needs only this. Stateless and
 * thread-safe.
 */
final class Json {

    private Json() {
    }

    /**
     * {@return the JSON text, without a trailing newline}
     *
     * @param value a {@link Map} with {@link String} keys (written in its iteration order), a {@link List}, a
     *     {@link String}, an {@link Integer}, a {@link Long}, a {@link Boolean} or null, nested to any depth
     * @throws IllegalArgumentException for any other kind of value
     */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, 0, out);
        return out.toString();
    }

    /**
     * As {@link #write}, on one line without spaces: one document per line for a stream of them (JSON Lines).
     *
     * @param value as for {@link #write}
     * @return the JSON text, one line
     * @throws IllegalArgumentException for a value {@link #write} does not take
     */
    static String writeLine(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, -1, out);
        return out.toString();
    }

    /** Writes a value; {@code indent} is the nesting level, or negative for one line. */
    private static void write(Object value, int indent, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            string(s, out);
        } else if (value instanceof Integer || value instanceof Long || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Map<?, ?> map) {
            container(map.entrySet().iterator(), true, indent, out);
        } else if (value instanceof List<?> list) {
            container(list.iterator(), false, indent, out);
        } else {
            throw new IllegalArgumentException("no JSON form for a " + value.getClass().getName());
        }
    }

    private static void container(Iterator<?> items, boolean object, int indent, StringBuilder out) {
        char close = object ? '}' : ']';
        out.append(object ? '{' : '[');
        if (!items.hasNext()) {
            out.append(close);
            return;
        }
        boolean oneLine = indent < 0;
        String inner = oneLine ? "" : "\n" + "  ".repeat(indent + 1);
        while (items.hasNext()) {
            out.append(inner);
            Object item = items.next();
            if (object) {
                Map.Entry<?, ?> entry = (Map.Entry<?, ?>) item;
                if (!(entry.getKey() instanceof String key)) {
                    throw new IllegalArgumentException("JSON object keys are strings, not " + entry.getKey());
                }
                string(key, out);
                out.append(oneLine ? ":" : ": ");
                item = entry.getValue();
            }
            write(item, oneLine ? indent : indent + 1, out);
            if (items.hasNext()) {
                out.append(',');
            }
        }
        out.append(oneLine ? "" : "\n" + "  ".repeat(indent)).append(close);
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    // Control characters must be escaped; U+2028/U+2029 too, for readers that embed JSON in script.
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
