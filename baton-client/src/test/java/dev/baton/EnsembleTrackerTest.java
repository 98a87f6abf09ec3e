package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EnsembleTrackerTest {

    @Test
    void readsClientAddressesFromADynamicConfig() {
        String config = """
                server.1=10.0.0.1:2888:3888:participant;0.0.0.0:2181
                server.2=zk2:2888:3888:participant;zk2-client:2182
                server.3=[::1]:2888:3888:observer;2183
                version=100000003
                """;
        assertThat(EnsembleTracker.connectStringFromConfig(config))
                .isEqualTo("10.0.0.1:2181,zk2-client:2182,[::1]:2183");
    }

    @Test
    void aConfigWithoutServersGivesNothing() {
        assertThat(EnsembleTracker.connectStringFromConfig("")).isEmpty();
        assertThat(EnsembleTracker.connectStringFromConfig("version=0\n")).isEmpty();
    }
}
