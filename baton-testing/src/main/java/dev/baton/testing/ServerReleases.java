package dev.baton.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the jars of a ZooKeeper server release line for {@link ZooKeeperEnsemble.Builder#serverVersion(String)}.
 *
 * <p>Each line has a module of its own ({@code dev.baton:baton-zookeeper-server-3.8}, …) that Maven builds: it
 * resolves that release and its runtime jars at build time and records their class path in the resource
 * {@code META-INF/baton/zookeeper-server-<line>.classpath}. A test that wants such a server adds that module as a
 * test dependency; nothing is downloaded when the test runs.
 */
final class ServerReleases {
    /** The lines that have a module, oldest first. */
    static final List<String> LINES = List.of("3.5", "3.6", "3.7", "3.8", "3.9");
    private static final Pattern LINE = Pattern.compile("(\\d+\\.\\d+)(\\.\\d+)?");
    private static final Pattern SERVER_JAR = Pattern.compile("zookeeper-(\\d+\\.\\d+\\.\\d+)\\.jar");

    /**
     * A release found on the class path.
     *
     * @param version the full version, e.g. {@code 3.8.6}
     * @param classpath the server JVM's class path: the release's jars and this kit
     */
    record Release(String version, String classpath) {
    }

    private ServerReleases() {
    }

    /**
     * The release of a line.
     *
     * @param version a line ({@code 3.8}) or a full version ({@code 3.8.6}, which must be the line's release)
     * @return the release
     * @throws IllegalArgumentException if {@code version} is malformed, its line has no module on the class
     *     path, or the module holds another release than the one asked for
     */
    static Release find(String version) {
        Matcher m = LINE.matcher(version);
        if (!m.matches()) {
            throw new IllegalArgumentException("serverVersion must be a release line such as 3.8 or a version such "
                    + "as 3.8.6: '" + version + "'");
        }
        String line = m.group(1);
        String resource = "META-INF/baton/zookeeper-server-" + line + ".classpath";
        String jars;
        try (InputStream in = ServerReleases.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no ZooKeeper " + line + " server on the class path: add the "
                        + "test dependency dev.baton:baton-zookeeper-server-" + line + " (lines with a module: "
                        + String.join(", ", LINES) + "; on this class path: " + onClassPath() + ")");
            }
            jars = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
        String found = Arrays.stream(jars.split(File.pathSeparator))
                .map(entry -> SERVER_JAR.matcher(Path.of(entry).getFileName().toString()))
                .filter(Matcher::matches).map(j -> j.group(1)).findFirst()
                .orElseThrow(() -> new IllegalStateException(resource + " names no zookeeper jar: " + jars));
        if (m.group(2) != null && !found.equals(version)) {
            throw new IllegalArgumentException("serverVersion " + version + ": the " + line + " module holds "
                    + found);
        }
        for (String entry : jars.split(File.pathSeparator, -1)) {
            if (!Files.exists(Path.of(entry))) {
                throw new IllegalStateException("ZooKeeper " + found + " jar " + entry + " is missing: build the "
                        + "baton-zookeeper-server-" + line + " module again (mvn -pl zookeeper-servers/" + line
                        + " package)");
            }
        }
        return new Release(found, jars + File.pathSeparator + kitLocation());
    }

    /** The lines whose module is on the class path, e.g. {@code "3.8, 3.9"}, or {@code "none"}. */
    static String onClassPath() {
        List<String> found = LINES.stream().filter(l -> ServerReleases.class.getClassLoader()
                .getResource("META-INF/baton/zookeeper-server-" + l + ".classpath") != null).toList();
        return found.isEmpty() ? "none" : String.join(", ", found);
    }

    /** Where this kit's classes are (the server JVM's entry point, {@link OrphanGuard}, is one of them). */
    private static String kitLocation() {
        URL location = OrphanGuard.class.getProtectionDomain().getCodeSource().getLocation();
        try {
            return Path.of(location.toURI()).toAbsolutePath().toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the kit's classes: " + location, e);
        }
    }
}
