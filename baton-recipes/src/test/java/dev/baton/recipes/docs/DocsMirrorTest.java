package dev.baton.recipes.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.recipes.docs.DocBlocks.Block;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.FileVisitResult;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every ```java block of README.md and MIGRATING.md is mirrored, line for line, by a region of a test source in
 * some module (see {@link DocBlocks}), exactly once, and every such region belongs to a block; the ```xml
 * dependency snippets name modules of this build at its version. The other block kinds are checked where their
 * classes are: ```properties in baton-spring-boot-starter, ```bash in baton-cli; ```text blocks are output
 * samples and not checked.
 */
@Timeout(60)
class DocsMirrorTest {
    private static final List<String> DOCUMENTS = List.of("README.md", "MIGRATING.md");

    private final Path root = DocBlocks.repositoryRoot();

    private List<Block> blocks(String language) {
        List<Block> blocks = new ArrayList<>();
        for (String doc : DOCUMENTS) {
            for (Block b : DocBlocks.blocks(doc, DocBlocks.read(root.resolve(doc)))) {
                if (b.language().equals(language)) {
                    blocks.add(b);
                }
            }
        }
        return blocks;
    }

    @Test
    void everyJavaBlockIsMirroredByATestSource() {
        List<Block> java = blocks("java");
        assertThat(java).hasSizeGreaterThan(25);
        List<String> problems = new ArrayList<>();
        for (Block b : java) {
            problems.addAll(DocBlocks.mirrorProblems(root, b));
        }
        assertThat(problems).as(String.join("\n\n", problems)).isEmpty();
    }

    @Test
    void everyMirrorRegionBelongsToExactlyOneBlock() throws IOException {
        Map<String, List<String>> markers = new HashMap<>();
        for (Block b : blocks("java")) {
            if (b.mirrorPath() != null) {
                String doc = Path.of(b.file()).getFileName().toString();
                markers.computeIfAbsent(doc + " " + b.mirrorPath() + "#" + b.mirrorName(), k -> new ArrayList<>())
                        .add(b.where());
            }
        }
        List<String> problems = new ArrayList<>();
        markers.forEach((mirror, where) -> {
            if (where.size() > 1) {
                problems.add(mirror + " is named by more than one block: " + where);
            }
        });
        List<Path> sources = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attributes) {
                String name = d.getFileName() == null ? "" : d.getFileName().toString();
                return name.equals(".git") || name.equals("target") || name.equals("node_modules")
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attributes) {
                if (f.toString().endsWith(".java") && root.relativize(f).toString().contains("src/test/java/")) {
                    sources.add(f);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        for (Path source : sources) {
            String relative = root.relativize(source).toString().replace('\\', '/');
            List<String> text = DocBlocks.read(source);
            for (String doc : DOCUMENTS) {
                for (String name : DocBlocks.regionNames(text, doc)) {
                    if (!markers.containsKey(doc + " " + relative + "#" + name)) {
                        problems.add(relative + ": region '" + name + "' for " + doc + " mirrors no block of it");
                    }
                }
            }
        }
        assertThat(problems).as(String.join("\n", problems)).isEmpty();
    }

    @Test
    void theCheckerNamesAMissingMarkerAMissingRegionAndADifference(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        Path source = dir.resolve("T.java");
        Files.writeString(source, String.join("\n",
                "class T {",
                "    // README.md begin good",
                "    int a = 1;",
                "    // README.md end good",
                "    // README.md begin bad",
                "    int b = 2;",
                "    // README.md end bad",
                "}"));
        List<String> readme = List.of(
                "text",
                "```java",
                "int x;",
                "```",
                "<!-- mirrored: T.java#good -->",
                "```java",
                "int a = 1;",
                "```",
                "<!-- mirrored: T.java#missing -->",
                "```java",
                "int m;",
                "```",
                "<!-- mirrored: T.java#bad -->",
                "```java",
                "int b = 3;",
                "```");
        List<Block> blocks = DocBlocks.blocks("README.md", readme);
        assertThat(blocks).hasSize(4);
        assertThat(DocBlocks.mirrorProblems(dir, blocks.get(0))).singleElement().asString()
                .startsWith("README.md:2: a ```java block without");
        assertThat(DocBlocks.mirrorProblems(dir, blocks.get(1))).isEmpty();
        assertThat(DocBlocks.mirrorProblems(dir, blocks.get(2))).singleElement().asString()
                .startsWith("README.md:10: T.java has no '// README.md begin missing'");
        assertThat(DocBlocks.mirrorProblems(dir, blocks.get(3))).singleElement().asString()
                .startsWith("README.md:14 differs from T.java#bad")
                .contains("document: |int b = 3;|", "source:   |int b = 2;|");
    }

    @Test
    void xmlDependenciesNameModulesOfThisBuildAtItsVersion() {
        String parent = String.join("\n", DocBlocks.read(root.resolve("pom.xml")));
        String groupId = tag(parent, "groupId");
        String version = tag(parent, "version");
        List<String> artifacts = new ArrayList<>();
        Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(parent);
        while (module.find()) {
            String pom = String.join("\n", DocBlocks.read(root.resolve(module.group(1).trim()).resolve("pom.xml")));
            int parentEnd = pom.indexOf("</parent>"); // none for the BOM, which inherits nothing
            artifacts.add(tag(parentEnd < 0 ? pom : pom.substring(parentEnd), "artifactId"));
        }
        assertThat(artifacts).contains("baton-recipes", "baton-discovery", "baton-spring-boot-starter");
        List<Block> xml = blocks("xml");
        assertThat(xml).isNotEmpty();
        for (Block b : xml) {
            String text = String.join("\n", b.lines()).trim();
            assertThat(text).as(b.where()).startsWith("<dependency>").endsWith("</dependency>");
            assertThat(tag(text, "groupId")).as(b.where()).isEqualTo(groupId);
            assertThat(tag(text, "artifactId")).as(b.where()).isIn(artifacts);
            assertThat(tag(text, "version")).as(b.where()).isEqualTo(version);
        }
    }

    /** The text of the first {@code <name>} element of {@code xml} (the project's own, in a pom after its parent). */
    private static String tag(String xml, String name) {
        Matcher m = Pattern.compile("<" + name + ">\\s*([^<]*?)\\s*</" + name + ">").matcher(xml);
        if (!m.find()) {
            throw new AssertionError("no <" + name + "> in " + xml);
        }
        return m.group(1);
    }
}
