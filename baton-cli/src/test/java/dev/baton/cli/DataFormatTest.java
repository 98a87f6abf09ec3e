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
    void binaryDataIsHexWithItsLength() {
        assertThat(DataFormat.describe(new byte[] {0, 0, 0, 42})).isEqualTo("0x0000002a (4 bytes)");
        assertThat(DataFormat.describe(new byte[] {(byte) 0xff})).isEqualTo("0xff (1 byte)");
        assertThat(DataFormat.describe(new byte[20])).isEqualTo("0x" + "00".repeat(16) + "... (20 bytes)");
        assertThat(DataFormat.describe(new byte[] {'a', 7, 'b'})).isEqualTo("0x610762 (3 bytes)");
    }
}
