package dev.baton.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The house rule that each main source file does one job, checked where it can slip: no file under any module's
 * {@code src/main} (the examples' too) reaches 600 lines.
 */
class MainFileSizeTest {

    private static final int LIMIT = 600;

    @Test
    void noMainFileReachesSixHundredLines() throws IOException {
        Path root = repositoryRoot();
        List<String> tooLong;
        try (Stream<Path> files = Files.walk(root)) {
            tooLong = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> root.relativize(p).toString().contains("src/main/"))
                    .filter(p -> !root.relativize(p).toString().contains("/target/"))
                    .filter(p -> lines(p) >= LIMIT)
                    .map(p -> root.relativize(p) + " (" + lines(p) + " lines)").sorted().toList();
        }
        assertThat(tooLong).as("main files of %d lines or more: split them along their jobs", LIMIT).isEmpty();
    }

    /** The nearest directory above the working one (a module's, or the suite's) that holds the README. */
    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("README.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("the repository root, above " + Path.of("").toAbsolutePath()).isNotNull();
        return dir;
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
