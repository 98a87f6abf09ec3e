package dev.baton.recipes.shared;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which of two reads of a shared value is the newer, at ZooKeeper's int version wrap-around, without a server. */
class SharedValueVersionTest {

    @Test
    void aRecreatedNodeIsNewerWhateverItsVersion() {
        assertThat(SharedValue.isNewer(200, 0, 100, 57)).isTrue();
        assertThat(SharedValue.isNewer(100, 58, 100, 57)).isTrue();
        assertThat(SharedValue.isNewer(100, 57, 100, 57)).isFalse();
        assertThat(SharedValue.isNewer(50, 90, 100, 57)).isFalse(); // a read from before the re-creation
        assertThat(SharedValue.isNewer(100, Integer.MIN_VALUE, 100, Integer.MAX_VALUE)).isTrue();
    }
}
