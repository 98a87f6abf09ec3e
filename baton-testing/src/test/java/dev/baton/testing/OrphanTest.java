package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A test JVM that dies by SIGKILL runs no shutdown hook; its kit children must still go away by themselves.
 * Here the "test JVM" is a driver that starts an ensemble, and the driver is killed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OrphanTest {

    @Test
    void serversOfAKilledTestJvmHaltByThemselves() throws Exception {
        try (DriverProcess parent = DriverProcess.builder(EnsembleDriver.class).heap("96m").start()) {
            String[] started = parent.call(Duration.ofSeconds(90), "start-ensemble").split(" ");
            assertThat(started[0]).startsWith("127.0.0.1:");
            Path directory = Path.of(started[1]);
            List<ProcessHandle> servers = ProcessHandle.of(parent.pid()).orElseThrow().descendants()
                    .filter(p -> KitResources.hasArgument(p, "-Dbaton.kit.server=e1-1"))
                    .collect(Collectors.toList());
            assertThat(servers).hasSize(1);

            parent.kill(); // SIGKILL: no shutdown hook runs in the parent

            await().atMost(Duration.ofSeconds(60)).until(() -> servers.stream().noneMatch(ProcessHandle::isAlive));
            // A JVM killed by SIGKILL cannot delete its files; that much is left to the operating system's /tmp.
            Directories.deleteRecursively(directory);
        }
    }

    /** A driver that owns an ensemble, as a test JVM would. */
    static final class EnsembleDriver {

        private EnsembleDriver() {
        }

        public static void main(String[] args) {
            DriverMain driver = DriverMain.create();
            driver.on("start-ensemble", a -> {
                ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.builder().servers(1).build().start();
                return ensemble.connectString() + " " + ensemble.directory();
            });
            driver.run();
        }
    }
}
