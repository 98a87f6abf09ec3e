package dev.baton.cli;

import static dev.baton.cli.Cli.baton;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.ZooKeeperEnsemble;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every demo with {@code --connect} against a one-server ensemble of each ZooKeeper release line (a separate
 * JVM), the version shown and nothing left behind. On 3.5 the demos' views of their trees are caches on one-shot
 * watches, and the persistent-watcher demo, which needs a recursive watch, stops at once saying why. The lines come from {@code baton.compat.lines} (default {@code 3.8},
 * the tier CI runs), as for baton-recipes' {@code ServerCompatibilityTest}; the whole matrix:
 * {@code mvn -pl suite/main -am verify -Dtest=DemosOnServerLinesTest -Dbaton.compat.lines=3.5,3.6,3.7,3.8,3.9
 * -Dsurefire.failIfNoSpecifiedTests=false} ({@code -Dbaton.compat.demos=queue,discovery} picks demos).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Tag("compat")
class DemosOnServerLinesTest {
    private static final Map<String, ZooKeeperEnsemble> SERVERS = new ConcurrentHashMap<>();

    static Stream<Arguments> demos() {
        return Arrays.stream(System.getProperty("baton.compat.lines", "3.8").split(",")).map(String::strip)
                .flatMap(line -> Demos.ALL.stream().map(Demo::name).filter(DemosOnServerLinesTest::chosen)
                        .map(demo -> Arguments.of(line, demo)));
    }

    /** Every demo, or those named in {@code baton.compat.demos} (comma-separated). */
    private static boolean chosen(String demo) {
        String names = System.getProperty("baton.compat.demos", "");
        return names.isBlank() || Arrays.stream(names.split(",")).map(String::strip).anyMatch(demo::equals);
    }

    @AfterAll
    static void stopServers() {
        SERVERS.values().forEach(ZooKeeperEnsemble::close);
    }

    @ParameterizedTest(name = "ZooKeeper {0}: baton demo {1} --connect")
    @MethodSource("demos")
    void demoRunsAgainstTheServerAndLeavesItClean(String line, String demo) throws Exception {
        ZooKeeperEnsemble server = SERVERS.computeIfAbsent(line,
                l -> ZooKeeperEnsemble.builder().servers(1).serverVersion(l).build().start());

        Cli.Result result = baton("demo", demo, "--connect", server.connectString(), "--speed", "50");

        assertThat(result.out()).as(result.toString())
                .contains("(--connect): no outage in this run; ZooKeeper " + server.serverVersion());
        assertThat(result.toString()).doesNotContain("UnimplementedException");
        if (line.equals("3.5") && demo.equals("persistent-watcher")) {
            // A recursive watch cannot be made of one-shot watches: refused at once, saying why.
            assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
            assertThat(result.err()).contains("baton demo persistent-watcher: this demo watches recursively: "
                    + "persistent and recursive watches (addWatch) need ZooKeeper 3.6.0 or newer; the server at ")
                    .contains(" runs ZooKeeper " + server.serverVersion());
        } else {
            assertThat(result.exitCode()).as(result.toString()).isZero();
        }
        try (BatonClient client = Baton.newClient(server.connectString(), new RetryOneTime(100))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            assertThat(client.checkExists().forPath("/demo")).as("the demo's tree").isNull();
        }
    }
}
