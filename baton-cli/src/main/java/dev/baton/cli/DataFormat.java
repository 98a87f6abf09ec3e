package dev.baton.cli;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/** Shows node data in one short line. Stateless and thread-safe. */
final class DataFormat {

    private static final int MAX_CHARS = 60;
    private static final int MAX_HEX_BYTES = 16;

    private DataFormat() {
    }

    /**
     * Describes node data: printable UTF-8 text in double quotes (escaped, cut after 60 characters); 4 or 8 other
     * bytes as the big-endian number a counter stores there ({@code SharedCount} and
     * {@code DistributedAtomicInteger} write 4 bytes, {@code DistributedAtomicLong} 8), with the bytes in hex;
     * anything else as hex (the first 16 bytes) with its length.
     *
     * @param data the data; may be null
     * @return {@code "(no data)"}, {@code "(empty)"}, {@code "\"text\""}, {@code "42 (4-byte int 0x0000002a)"},
     *     {@code "42 (8-byte long 0x000000000000002a)"} or {@code "0x0a0b0c (3 bytes)"}
     */
    static String describe(byte[] data) {
        if (data == null) {
            return "(no data)";
        }
        if (data.length == 0) {
            return "(empty)";
        }
        String text = text(data);
        if (text != null) {
            return quote(text);
        }
        OptionalLong counter = counter(data);
        if (counter.isPresent()) {
            return counter.getAsLong() + " (" + data.length + "-byte " + (data.length == 4 ? "int " : "long ")
                    + hex(data) + ")";
        }
        return hex(data) + " (" + data.length + (data.length == 1 ? " byte)" : " bytes)");
    }

    /**
     * {@return {@code 0x} and the first 16 bytes in hex, {@code ...} after them if there are more}
     *
     * @param data node data
     */
    static String hex(byte[] data) {
        StringBuilder hex = new StringBuilder("0x");
        for (int i = 0; i < Math.min(data.length, MAX_HEX_BYTES); i++) {
            hex.append(String.format("%02x", data[i]));
        }
        if (data.length > MAX_HEX_BYTES) {
            hex.append("...");
        }
        return hex.toString();
    }

    /**
     * Reads the number a counter stores, if the data looks like one: exactly 4 or 8 bytes that are not text.
     *
     * @param data node data
     * @return the big-endian int (4 bytes) or long (8 bytes), or empty
     */
    static OptionalLong counter(byte[] data) {
        if (data == null || (data.length != 4 && data.length != 8) || text(data) != null) {
            return OptionalLong.empty();
        }
        ByteBuffer buffer = ByteBuffer.wrap(data);
        return OptionalLong.of(data.length == 4 ? buffer.getInt() : buffer.getLong());
    }

    /**
     * {@return the data as text if it is valid UTF-8 without control characters other than tab and newlines
     *     ({@code ""} for empty data), or null}
     *
     * @param data node data
     */
    static String text(byte[] data) {
        if (data == null) {
            return null;
        }
        CharBuffer chars;
        try {
            chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(data));
        } catch (CharacterCodingException e) {
            return null;
        }
        String text = chars.toString();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) && c != '\n' && c != '\t' && c != '\r') {
                return null;
            }
        }
        return text;
    }

    private static String quote(String text) {
        boolean cut = text.length() > MAX_CHARS;
        int end = cut && Character.isHighSurrogate(text.charAt(MAX_CHARS - 1)) ? MAX_CHARS - 1 : MAX_CHARS;
        String shown = cut ? text.substring(0, end) : text;
        String escaped = shown.replace("\\", "\\\\").replace("\"", "\\\"")
                .replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t");
        return "\"" + escaped + "\"" + (cut ? "... (" + text.length() + " chars)" : "");
    }
}
