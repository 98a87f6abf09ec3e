package dev.baton.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every help text of the {@code baton} command renders without picocli warnings. */
class HelpTextTest {

    @Test
    void everyCommandsHelpRendersWithoutWarnings() {
        PrintStream none = new PrintStream(PrintStream.nullOutputStream());
        CommandLine root = new CommandLine(new BatonCommand(none, none));
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        PrintStream err = System.err;
        StringBuilder help = new StringBuilder();
        System.setErr(new PrintStream(warnings, true, UTF_8));
        try {
            render(root, help);
        } finally {
            System.setErr(err);
        }
        assertThat(help).contains("Usage: baton chaos");
        assertThat(warnings.toString(UTF_8)).as("picocli reads help lines as format strings: write %% for %")
                .isEmpty();
    }

    private static void render(CommandLine command, StringBuilder help) {
        help.append(command.getUsageMessage());
        command.getSubcommands().values().forEach(sub -> render(sub, help));
    }
}
