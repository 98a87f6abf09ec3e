package dev.baton.cli;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Shows node data in one short line. Stateless and thread-safe. */
final class DataFormat {

    private static final int MAX_CHARS = 60;
    private static final int MAX_HEX_BYTES = 16;

    private DataFormat() {
    }

    /**
     * Describes node data: printable UTF-8 text in double quotes (escaped, cut after 60 characters), anything
     * else as hex (the first 16 bytes) with its length.
     *
     * @param data the data; may be null
     * @return {@code "(no data)"}, {@code "(empty)"}, {@code "\"text\""} or {@code "0x0000002a (4 bytes)"}
     */
    static String describe(byte[] data) {
        if (data == null) {
            return "(no data)";
        }
        if (data.length == 0) {
            return "(empty)";
        }
        String text = printableUtf8(data);
        if (text != null) {
            return quote(text);
        }
        StringBuilder hex = new StringBuilder("0x");
        for (int i = 0; i < Math.min(data.length, MAX_HEX_BYTES); i++) {
            hex.append(String.format("%02x", data[i]));
        }
        if (data.length > MAX_HEX_BYTES) {
            hex.append("...");
        }
        return hex.append(" (").append(data.length).append(data.length == 1 ? " byte)" : " bytes)").toString();
    }

    /** The text, or null if the bytes are not valid UTF-8 or hold control characters other than tab/newline. */
    private static String printableUtf8(byte[] data) {
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
