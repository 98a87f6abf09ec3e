package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DataFormatTest {

    @Test
    void printableTextIsQuotedAndEscaped() {
        assertThat(DataFormat.describe("alice".getBytes(UTF_8))).isEqualTo("\"alice\"");
        assertThat(DataFormat.describe("grüße \"x\"\n".getBytes(UTF_8))).isEqualTo("\"grüße \\\"x\\\"\\n\"");
        assertThat(DataFormat.describe("a".repeat(100).getBytes(UTF_8)))
                .isEqualTo("\"" + "a".repeat(60) + "\"... (100 chars)");
    }

    @Test
    void emptyAndMissingData() {
        assertThat(DataFormat.describe(new byte[0])).isEqualTo("(empty)");
        assertThat(DataFormat.describe(null)).isEqualTo("(no data)");
    }

    @Test
    void countersAreNumbers() {
        assertThat(DataFormat.describe(new byte[] {0, 0, 0, 42})).isEqualTo("42 (4-byte int 0x0000002a)");
        assertThat(DataFormat.describe(new byte[] {-1, -1, -1, -2})).isEqualTo("-2 (4-byte int 0xfffffffe)");
        assertThat(DataFormat.describe(new byte[] {0, 0, 0, 1, 0, 0, 0, 0}))
                .isEqualTo("4294967296 (8-byte long 0x0000000100000000)");
        assertThat(DataFormat.counter(new byte[] {0, 0, 0, 7})).hasValue(7);
        // Four printable bytes are text, not a counter.
        assertThat(DataFormat.counter("abcd".getBytes(UTF_8))).isEmpty();
        assertThat(DataFormat.describe("abcd".getBytes(UTF_8))).isEqualTo("\"abcd\"");
    }

    @Test
    void binaryDataIsHexWithItsLength() {
        assertThat(DataFormat.describe(new byte[] {(byte) 0xff})).isEqualTo("0xff (1 byte)");
        assertThat(DataFormat.describe(new byte[20])).isEqualTo("0x" + "00".repeat(16) + "... (20 bytes)");
        assertThat(DataFormat.describe(new byte[] {'a', 7, 'b'})).isEqualTo("0x610762 (3 bytes)");
    }
}
