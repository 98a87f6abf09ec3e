package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The {@code baton} command lines of README.md and MIGRATING.md: every one in a ```bash block, and every inline
 * {@code `baton ...`} span that is a whole command, parses with the command's own options, names an existing
 * demo, and names the distribution by this build's version. (```text blocks are output samples, not checked;
 * {@code baton-bench/run} lines are checked in baton-bench; {@code mvn}, {@code tar}'s own flags and
 * {@code export} are not Baton's.)
 */
@Timeout(60)
class ReadmeCommandsTest {
    private static final Path ROOT = repositoryRoot();
    private static final Pattern BATON = Pattern.compile("^(?:\\./|\\S*/bin/)?baton$");

    /** A command line of a document: where it is and its words. */
    record Line(String where, List<String> words) {
    }

    /** The nearest directory above the working one (a module's, or the suite's) that holds the README. */
    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("README.md"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no README.md above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    private static List<String> read(String file) throws IOException {
        return Files.readAllLines(ROOT.resolve(file), StandardCharsets.UTF_8);
    }

    /** The command lines of the ```bash blocks: continuations joined, comments dropped. */
    static List<Line> bashLines(String file, List<String> text) {
        List<Line> lines = new ArrayList<>();
        for (int i = 0; i < text.size(); i++) {
            if (!text.get(i).trim().equals("```bash")) {
                continue;
            }
            StringBuilder command = new StringBuilder();
            int start = i + 2;
            for (i = i + 1; !text.get(i).trim().equals("```"); i++) {
                String line = text.get(i).replaceAll("(^|\\s)#.*$", "").stripTrailing();
                if (line.endsWith("\\")) {
                    command.append(line, 0, line.length() - 1).append(' ');
                    continue;
                }
                command.append(line);
                if (!command.toString().isBlank()) {
                    lines.add(new Line(file + ":" + start, Arrays.asList(command.toString().trim().split("\\s+"))));
                }
                command.setLength(0);
                start = i + 2;
            }
        }
        return lines;
    }

    private static String version() throws IOException {
        Matcher m = Pattern.compile("<version>([^<]+)</version>").matcher(String.join("\n", read("pom.xml")));
        assertThat(m.find()).isTrue();
        return m.group(1);
    }

    /** Parses {@code args} as the {@code baton} command would, and checks a demo's name. */
    private static void assertIsACommand(String where, List<String> args) {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertThatCode(() -> new CommandLine(new BatonCommand(sink, sink)).parseArgs(args.toArray(String[]::new)))
                .as("%s: baton %s", where, String.join(" ", args)).doesNotThrowAnyException();
        if (args.size() > 1 && args.get(0).equals("demo") && !args.get(1).startsWith("-")) {
            assertThat(Demos.find(args.get(1))).as("%s: the demo '%s'", where, args.get(1)).isPresent();
        }
    }

    @Test
    void everyBatonCommandLineOfABashBlockParses() throws IOException {
        String version = version();
        int batonLines = 0;
        for (String file : List.of("README.md", "MIGRATING.md")) {
            for (Line line : bashLines(file, read(file))) {
                for (String word : line.words()) {
                    Matcher dist = Pattern.compile("baton-(\\d[^/]*?)(?:\\.tar\\.gz|\\.zip|/|$)").matcher(word);
                    if (dist.find()) {
                        assertThat(dist.group(1)).as("%s: the distribution's version in %s", line.where(), word)
                                .isEqualTo(version);
                    }
                }
                if (BATON.matcher(line.words().get(0)).matches()) {
                    assertIsACommand(line.where(), line.words().subList(1, line.words().size()));
                    batonLines++;
                }
            }
        }
        assertThat(batonLines).isGreaterThanOrEqualTo(3);
    }

    @Test
    void everyInlineBatonCommandParses() throws IOException {
        Pattern span = Pattern.compile("`((?:\\./)?baton [^`]*)`");
        int checked = 0;
        for (String file : List.of("README.md", "MIGRATING.md")) {
            List<String> text = read(file);
            for (int i = 0; i < text.size(); i++) {
                Matcher m = span.matcher(text.get(i));
                while (m.find()) {
                    List<String> words = Arrays.asList(m.group(1).trim().split("\\s+"));
                    boolean placeholder = m.group(1).contains("…") || m.group(1).contains("<");
                    if (!placeholder && words.size() > 2) {   // 'baton inspect' names the command, not a run of it
                        assertIsACommand(file + ":" + (i + 1), words.subList(1, words.size()));
                        checked++;
                    }
                }
            }
        }
        assertThat(checked).isGreaterThan(10);
    }

    @Test
    void aBlockLineIsReadAsTheShellReadsIt() {
        List<Line> lines = bashLines("X.md", List.of("```bash", "export A=1", "baton inspect /x --connect a:1 \\",
                "    --auth digest:env:A        # a comment", "```"));
        assertThat(lines).extracting(Line::words).containsExactly(List.of("export", "A=1"),
                List.of("baton", "inspect", "/x", "--connect", "a:1", "--auth", "digest:env:A"));
        assertThat(lines).extracting(Line::where).containsExactly("X.md:2", "X.md:3");
    }
}
