package dev.baton.recipes.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fenced code blocks of a Markdown file, and the mirror scheme that ties a ```java block to a region of a test
 * source: the line before the block is {@code <!-- mirrored: <repo-relative path>#<name> -->}, and the source holds
 * the block's text between {@code // <file> begin <name>} and {@code // <file> end <name>} lines (several such
 * regions of one name are read as one, in order, so a block's imports and its statements can sit where Java wants
 * them). Texts are compared after removing each side's common indentation.
 */
final class DocBlocks {
    private static final Pattern FENCE = Pattern.compile("^(\\s*)```(\\S*)\\s*$");
    private static final Pattern MARKER = Pattern.compile("^\\s*<!-- mirrored: (\\S+?)#(\\S+) -->\\s*$");

    private DocBlocks() {
    }

    /** One fenced block: where its opening fence is (1-based), its language, its lines, and its mirror marker. */
    record Block(String file, int line, String language, List<String> lines, String mirrorPath, String mirrorName) {
        String where() {
            return file + ":" + line;
        }
    }

    /** The repository's root: the parent of a module's directory when run by Maven, else the working directory. */
    static Path repositoryRoot() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("README.md")) && Files.exists(p.resolve("MIGRATING.md"))) {
                return p;
            }
        }
        throw new IllegalStateException("no README.md and MIGRATING.md above " + here);
    }

    static List<String> read(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The fenced blocks of {@code text}, named {@code file} in what it reports. */
    static List<Block> blocks(String file, List<String> text) {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < text.size(); i++) {
            Matcher open = FENCE.matcher(text.get(i));
            if (!open.matches() || open.group(2).isEmpty()) {
                continue;
            }
            int end = i + 1;
            while (end < text.size() && !text.get(end).trim().equals("```")) {
                end++;
            }
            if (end == text.size()) {
                throw new IllegalStateException(file + ":" + (i + 1) + ": the ``` block is not closed");
            }
            String path = null;
            String name = null;
            if (i > 0) {
                Matcher marker = MARKER.matcher(text.get(i - 1));
                if (marker.matches()) {
                    path = marker.group(1);
                    name = marker.group(2);
                }
            }
            blocks.add(new Block(file, i + 1, open.group(2), List.copyOf(text.subList(i + 1, end)), path, name));
            i = end;
        }
        return blocks;
    }

    /**
     * The lines of the regions named {@code name} in {@code source} for the document {@code doc} (such as
     * {@code README.md}), each region without its common indentation, in order; empty if there is none.
     */
    static List<String> region(List<String> source, String doc, String name) {
        String begin = "// " + doc + " begin " + name;
        String end = "// " + doc + " end " + name;
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < source.size(); i++) {
            if (source.get(i).trim().equals(begin)) {
                int j = i + 1;
                while (j < source.size() && !source.get(j).trim().equals(end)) {
                    j++;
                }
                if (j == source.size()) {
                    throw new IllegalStateException("'" + begin + "' has no '" + end + "'");
                }
                lines.addAll(dedent(source.subList(i + 1, j)));
                i = j;
            }
        }
        return lines;
    }

    /** The names of every region for {@code doc} that {@code source} holds. */
    static List<String> regionNames(List<String> source, String doc) {
        String begin = "// " + doc + " begin ";
        List<String> names = new ArrayList<>();
        for (String line : source) {
            String t = line.trim();
            if (t.startsWith(begin) && !names.contains(t.substring(begin.length()))) {
                names.add(t.substring(begin.length()));
            }
        }
        return names;
    }

    /** {@code lines} without the indentation all its non-blank lines share; blank lines become empty. */
    static List<String> dedent(List<String> lines) {
        int common = Integer.MAX_VALUE;
        for (String line : lines) {
            if (!line.isBlank()) {
                int n = 0;
                while (n < line.length() && line.charAt(n) == ' ') {
                    n++;
                }
                common = Math.min(common, n);
            }
        }
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            out.add(line.isBlank() ? "" : line.substring(common).stripTrailing());
        }
        return out;
    }

    /**
     * What is wrong with the mirror of the ```java block {@code block}, read from the repository at {@code root};
     * empty if the block and its region agree.
     */
    static List<String> mirrorProblems(Path root, Block block) {
        if (block.mirrorPath() == null) {
            return List.of(block.where() + ": a ```java block without a '<!-- mirrored: <test source>#<name> -->'"
                    + " line before it");
        }
        Path source = root.resolve(block.mirrorPath());
        if (!Files.isRegularFile(source)) {
            return List.of(block.where() + ": its mirror " + block.mirrorPath() + " does not exist");
        }
        String doc = Path.of(block.file()).getFileName().toString();
        List<String> region = region(read(source), doc, block.mirrorName());
        if (region.isEmpty()) {
            return List.of(block.where() + ": " + block.mirrorPath() + " has no '// " + doc + " begin "
                    + block.mirrorName() + "' ... '// " + doc + " end " + block.mirrorName() + "' region");
        }
        String diff = difference(dedent(block.lines()), region, block.file(), block.line());
        return diff == null ? List.of()
                : List.of(block.where() + " differs from " + block.mirrorPath() + "#" + block.mirrorName() + ":\n"
                        + diff);
    }

    /**
     * The first difference of two texts, shown line by line, or {@code null} if they are equal; {@code doc}'s
     * lines are those after line {@code fence} of {@code file}.
     */
    static String difference(List<String> doc, List<String> source, String file, int fence) {
        int n = Math.max(doc.size(), source.size());
        for (int i = 0; i < n; i++) {
            String d = i < doc.size() ? doc.get(i) : null;
            String s = i < source.size() ? source.get(i) : null;
            if (d == null || !d.equals(s)) {
                return "  line " + (i + 1) + " of the block (" + file + ":" + (fence + 1 + i) + "):\n"
                        + "    document: " + (d == null ? "(the block ends)" : "|" + d + "|") + "\n"
                        + "    source:   " + (s == null ? "(the region ends)" : "|" + s + "|");
            }
        }
        return null;
    }
}
