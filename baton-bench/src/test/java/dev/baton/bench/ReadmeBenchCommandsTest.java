package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code baton-bench/run} command lines of README.md, in its ```bash blocks and inline spans: each parses with
 * the benchmark's options and names only scenarios and libraries it has.
 */
@Timeout(60)
class ReadmeBenchCommandsTest {

    @Test
    void everyBenchCommandLineParses() throws IOException {
        List<String> readme = Files.readAllLines(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        Pattern span = Pattern.compile("`(baton-bench/run [^`]*)`");
        int checked = 0;
        boolean inBash = false;
        for (int i = 0; i < readme.size(); i++) {
            String line = readme.get(i);
            if (line.trim().startsWith("```")) {
                inBash = line.trim().equals("```bash");
                continue;
            }
            String command = null;
            if (inBash && line.startsWith("baton-bench/run ")) {
                command = line.replaceAll("\\s#.*$", "");
            } else if (!inBash) {
                Matcher m = span.matcher(line);
                if (m.find()) {
                    command = m.group(1);
                }
            }
            if (command != null) {
                String[] args = Arrays.stream(command.trim().split("\\s+")).skip(1).toArray(String[]::new);
                String where = "README.md:" + (i + 1) + ": " + command.trim();
                assertThatCode(() -> {
                    BenchOptions options = BenchOptions.parse(args);
                    Scenarios.select(options.scenarios());
                    Libraries.create(options.libraries());
                }).as(where).doesNotThrowAnyException();
                checked++;
            }
        }
        assertThat(checked).isGreaterThanOrEqualTo(4);
    }
}
