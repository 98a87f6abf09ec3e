package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The version arithmetic at ZooKeeper's int wrap-around, without a server. */
class VersionsTest {

    @Test
    void newerAcrossTheWrap() {
        assertThat(Versions.isNewer(1, 0)).isTrue();
        assertThat(Versions.isNewer(0, 1)).isFalse();
        assertThat(Versions.isNewer(5, 5)).isFalse();
        assertThat(Versions.isNewer(Integer.MIN_VALUE, Integer.MAX_VALUE)).isTrue();   // MAX + 1 wraps to MIN
        assertThat(Versions.isNewer(Integer.MAX_VALUE, Integer.MIN_VALUE)).isFalse();
        assertThat(Versions.isNewer(-1, -2)).isTrue();
        assertThat(Versions.isNewer(0, -1)).isTrue();
        assertThat(Versions.isNewer(-1, 0)).isFalse();
        assertThat(Versions.isNewer(Integer.MIN_VALUE + 10, Integer.MAX_VALUE - 10)).isTrue();
    }
}
