package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution as a user gets it: the archive {@code mvn package} made, unpacked in a temporary directory
 * outside the source tree, run through {@code bin/baton} by a shell whose PATH holds {@code java} and a few
 * basic tools, nothing else (no Maven), with an otherwise empty environment. Runs in the integration-test phase
 * ({@code mvn verify}), after the archive is built.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DistributionIT {

    @TempDir
    static Path dir;

    private static Path home;
    private static Path tools;

    @BeforeAll
    static void unpack() throws Exception {
        String built = System.getProperty("baton.dist.archive");
        // Set only by the pom's integration-test execution, which runs after the archive is built.
        Assumptions.assumeTrue(built != null, "the distribution archive is tested by `mvn verify`");
        Path archive = Path.of(built);
        assertThat(archive).as("the archive `mvn package` makes").exists();
        Result tar = run(List.of("tar", "xzf", archive.toString(), "-C", dir.toString()), Map.of(), dir);
        assertThat(tar.exitCode()).as(tar.output()).isZero();
        home = dir.resolve("baton-" + System.getProperty("baton.version"));
        // The only commands the PATH offers besides java: what a minimal system has, and bin/baton uses.
        tools = Files.createDirectory(dir.resolve("tools"));
        for (String tool : List.of("dirname", "ls", "sed")) {
            Files.createSymbolicLink(tools.resolve(tool), which(tool));
        }
    }

    @Test
    void archiveHoldsTheLauncherAndTheJars() throws IOException {
        assertThat(Files.getPosixFilePermissions(home.resolve("bin/baton")))
                .contains(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OTHERS_EXECUTE);
        assertThat(home.resolve("bin/baton.cmd")).exists();
        assertThat(Files.readString(home.resolve("README.txt"))).contains("bin/baton demo")
                .contains(System.getProperty("baton.version"));
        try (var jars = Files.list(home.resolve("lib"))) {
            assertThat(jars.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).toList())
                    .anyMatch(n -> n.startsWith("baton-cli-"))
                    .anyMatch(n -> n.startsWith("baton-recipes-"))
                    .anyMatch(n -> n.startsWith("zookeeper-3.9"))
                    .noneMatch(n -> n.contains("junit") || n.contains("tcnative") || n.contains("curator"));
        }
        // Curator only for the Curator clients of a mixed chaos run, apart from the command's class path.
        try (var jars = Files.list(home.resolve("lib/curator"))) {
            assertThat(jars.map(p -> p.getFileName().toString()).toList())
                    .anyMatch(n -> n.startsWith("curator-recipes-5."))
                    .anyMatch(n -> n.startsWith("curator-framework-5."))
                    .anyMatch(n -> n.startsWith("guava-"))
                    .noneMatch(n -> n.startsWith("zookeeper-") || n.startsWith("baton-"));
        }
    }

    @Test
    void demoRunsOnAnEmbeddedServerWithOnlyJava() throws Exception {
        Result demo = baton(Map.of("PATH", javaBin() + ":" + tools), "demo", "--speed", "20");

        assertThat(demo.exitCode()).as(demo.output()).isZero();
        assertThat(demo.output()).startsWith("baton demo client: ")
                .contains("embedded ZooKeeper listening on 127.0.0.1:")
                .contains("CONNECTED    session 0x")
                .contains("SUSPENDED")
                .contains("RECONNECTED  same session")
                .contains("NodeDeleted /demo")
                .containsPattern("done +in [\\d.]+s, embedded server closed");
    }

    /**
     * The README's first command runs {@code baton.jar} (the shaded jar {@code ./baton} builds), not the archive:
     * the whole demo, with the tree it draws (which decodes recipe layouts), must run from that jar alone.
     */
    @Test
    void theShadedJarRunsTheDemoWithOnlyJava() throws Exception {
        Path jar = Path.of(System.getProperty("baton.jar"));
        assertThat(jar).as("the jar `mvn package` makes").exists();
        Result demo = run(List.of(javaBin().resolve("java").toString(), "-jar", jar.toString(), "demo", "--speed",
                "20"), Map.of("PATH", tools.toString()), dir);

        assertThat(demo.exitCode()).as(demo.output()).isZero();
        assertThat(demo.output()).startsWith("baton demo client: ")
                .contains("[group: 2 members")
                .containsPattern("done +in [\\d.]+s, embedded server closed");
    }

    @Test
    void javaHomeAndSymbolicLinksWork() throws Exception {
        // java is not on this PATH: JAVA_HOME must be used. The command is reached through a link elsewhere.
        Path link = Files.createDirectories(dir.resolve("elsewhere")).resolve("baton");
        Files.createSymbolicLink(link, home.resolve("bin/baton"));
        Result version = run(List.of(link.toString(), "--version"), Map.of("PATH", tools.toString(), "JAVA_HOME",
                System.getProperty("java.home")), dir);

        assertThat(version.exitCode()).as(version.output()).isZero();
        assertThat(version.output()).startsWith("baton " + System.getProperty("baton.version"));

        Result list = baton(Map.of("PATH", javaBin() + ":" + tools), "demo", "--list");
        assertThat(list.exitCode()).as(list.output()).isZero();
        Demos.ALL.forEach(d -> assertThat(list.output()).contains(d.name()));
    }

    @Test
    void withoutJavaItSaysWhatIsMissing() throws Exception {
        Result none = baton(Map.of("PATH", tools.toString()), "--version");

        assertThat(none.exitCode()).isEqualTo(1);
        assertThat(none.output()).contains("baton: no Java found");
    }

    private record Result(int exitCode, String output) {
    }

    private static Result baton(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin/baton").toString());
        command.addAll(List.of(args));
        return run(command, env, dir);
    }

    /** Runs a command with exactly this environment, in this directory; output and errors together. */
    private static Result run(List<String> command, Map<String, String> env, Path workDir) throws Exception {
        Path output = Files.createTempFile(dir, "output", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        if (!env.isEmpty()) {
            builder.environment().clear();
            builder.environment().putAll(env);
        }
        Process process = builder.start();
        try {
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                throw new AssertionError(command + " did not end:\n" + Files.readString(output, UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(output, UTF_8));
        } finally {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    private static Path javaBin() {
        return Path.of(System.getProperty("java.home"), "bin");
    }

    private static Path which(String tool) {
        for (String dirName : List.of("/usr/bin", "/bin")) {
            Path path = Path.of(dirName, tool);
            if (Files.isExecutable(path)) {
                return path;
            }
        }
        throw new AssertionError("no " + tool + " in /usr/bin or /bin");
    }
}
