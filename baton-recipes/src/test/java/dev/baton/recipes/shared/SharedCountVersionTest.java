package dev.baton.recipes.shared;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which of two reads of a count is the newer, at ZooKeeper's int version wrap-around, without a server. */
class SharedCountVersionTest {

    @Test
    void aRecreatedNodeIsNewerWhateverItsVersion() {
        assertThat(SharedCount.isNewer(200, 0, 100, 57)).isTrue();
        assertThat(SharedCount.isNewer(100, 58, 100, 57)).isTrue();
        assertThat(SharedCount.isNewer(100, 57, 100, 57)).isFalse();
        assertThat(SharedCount.isNewer(50, 90, 100, 57)).isFalse(); // a read from before the re-creation
        assertThat(SharedCount.isNewer(100, Integer.MIN_VALUE, 100, Integer.MAX_VALUE)).isTrue();
    }
}
