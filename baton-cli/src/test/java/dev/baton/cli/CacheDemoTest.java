package dev.baton.cli;

import static dev.baton.cli.Cli.baton;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CacheDemoTest {

    @Test
    void cacheDemoPrintsEachEditThenItsEvent() {
        Cli.Result result = baton("demo", "cache", "--speed", "20");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        List<String> lines = result.outLines();
        int initialDb = find(lines, "event   created /demo-cache/config/db = \"postgres://db-1:5432\"");
        int initialized = find(lines, "cache   initialized: 3 nodes cached");
        int set = find(lines, "set     /demo-cache/config/db = \"postgres://db-2:5432\"");
        int changed = find(lines, "event   changed /demo-cache/config/db = \"postgres://db-2:5432\"");
        int beta = find(lines, "event   created /demo-cache/config/flags/beta = \"off\"");
        int deleted = find(lines, "event   deleted /demo-cache/config/cache = \"redis://cache-1:6379\"");
        int recreated = find(lines, "event   created /demo-cache/config/cache = \"redis://cache-2:6379\"");
        int rootDeleted = find(lines, "event   deleted /demo-cache/config = \"\"");
        assertThat(List.of(initialDb, initialized, set, changed, beta, deleted, recreated, rootDeleted))
                .as(result.toString()).allMatch(i -> i >= 0).isSorted();
        assertThat(Demos.find("cache")).isPresent();
    }

    private static int find(List<String> lines, String text) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i;
            }
        }
        return -1;
    }
}
