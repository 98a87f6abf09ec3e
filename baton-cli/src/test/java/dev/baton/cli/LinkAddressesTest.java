package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** A chaos client's map from the servers' own addresses to its link's. */
class LinkAddressesTest {

    private final LinkAddresses links = new LinkAddresses(Map.of("127.0.0.1:2181", "127.0.0.1:40001",
            "127.0.0.1:2182", "127.0.0.1:40002", "127.0.0.1:2183", "127.0.0.1:40003"));

    @Test
    void aReconfiguredServerListGoesThroughTheLinkAndKeepsItsChroot() {
        assertThat(links.toLinks("127.0.0.1:2181,127.0.0.1:2183")).isEqualTo("127.0.0.1:40001,127.0.0.1:40003");
        assertThat(links.toLinks("127.0.0.1:2182/app")).isEqualTo("127.0.0.1:40002/app");
        // A server the link does not know (added under another address) is reached as the configuration says.
        assertThat(links.toLinks("127.0.0.1:2181,127.0.0.1:2999")).isEqualTo("127.0.0.1:40001,127.0.0.1:2999");
    }

    @Test
    void itTravelsAsOneWordOfTheDriverProtocol() {
        assertThat(links.format()).isEqualTo(
                "127.0.0.1:2181>127.0.0.1:40001,127.0.0.1:2182>127.0.0.1:40002,127.0.0.1:2183>127.0.0.1:40003");
        assertThat(LinkAddresses.parse(links.format())).isEqualTo(links);
        assertThat(links.follow()).isTrue();
        assertThat(LinkAddresses.parse(LinkAddresses.NONE.format())).isEqualTo(LinkAddresses.NONE);
        assertThat(LinkAddresses.NONE.follow()).isFalse();
        assertThatThrownBy(() -> LinkAddresses.parse("127.0.0.1:2181")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("server>link");
    }
}
