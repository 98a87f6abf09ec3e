package dev.baton.cli;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where Apache Curator's jars are, for the Curator clients of a mixed chaos run ({@link CuratorChaosClient}).
 * Curator is never on the {@code baton} command's own class path; only those client JVMs get it, from the first
 * of: this JVM's class path already (the CLI module's tests), {@code lib/curator/} beside the command's jars (the
 * distribution), or the class path this module's build recorded ({@value #RECORDED}, for {@code baton.jar}).
 */
final class CuratorJars {

    /** The resource listing the jars the build resolved. */
    static final String RECORDED = "META-INF/baton/curator.classpath";

    private CuratorJars() {
    }

    /**
     * Returns the class path entries to add to a Curator client's (empty when this JVM has Curator already).
     *
     * @throws IllegalStateException when Curator's jars are nowhere to be found, saying where it looked
     */
    static String forClients() {
        if (onOwnClasspath()) {
            return "";
        }
        Path besideJars = distributionDirectory();
        if (besideJars != null) {
            try (Stream<Path> jars = Files.list(besideJars)) {
                List<String> found = jars.filter(p -> p.toString().endsWith(".jar")).map(Path::toString).sorted()
                        .toList();
                if (!found.isEmpty()) {
                    return String.join(File.pathSeparator, found);
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot list " + besideJars + ": " + e.getMessage(), e);
            }
        }
        String recorded = recorded();
        if (recorded != null) {
            List<String> missing = new ArrayList<>(Arrays.stream(recorded.split(File.pathSeparator, -1))
                    .filter(e -> !e.isEmpty() && !Files.isRegularFile(Path.of(e))).toList());
            if (missing.isEmpty()) {
                return recorded;
            }
            throw new IllegalStateException("Curator's jars recorded at build time are gone: " + missing
                    + "; build the CLI again (mvn -pl baton-cli -am package)");
        }
        throw new IllegalStateException("Apache Curator's jars were not found (for --mix curator): no "
                + (besideJars != null ? besideJars : "lib/curator/ beside the command's jars") + " and no " + RECORDED);
    }

    private static boolean onOwnClasspath() {
        try {
            Class.forName("org.apache.curator.framework.CuratorFramework", false, CuratorJars.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Returns {@code lib/curator} when this class comes from a jar in a {@code lib} directory, else null. */
    private static Path distributionDirectory() {
        CodeSource source = CuratorJars.class.getProtectionDomain().getCodeSource();
        if (source == null) {
            return null;
        }
        try {
            Path jar = Path.of(source.getLocation().toURI());
            Path lib = jar.getParent();
            return Files.isRegularFile(jar) && lib != null && lib.getFileName() != null
                    && lib.getFileName().toString().equals("lib") ? lib.resolve("curator") : null;
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    private static String recorded() {
        try (InputStream in = CuratorJars.class.getClassLoader().getResourceAsStream(RECORDED)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + RECORDED + ": " + e.getMessage(), e);
        }
    }
}
