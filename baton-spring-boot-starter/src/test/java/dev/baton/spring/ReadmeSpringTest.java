package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * README.md's Spring Boot section: its ```properties blocks name only properties the starter declares (in its
 * generated metadata), and its {@code @LeaderOnly} example (mirrored line for line below the class, checked by
 * {@code DocsMirrorTest} in baton-recipes) runs in two application contexts on one leader path, as two instances.
 */
@Timeout(120)
class ReadmeSpringTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    /** What the example's beans are given. */
    @Configuration(proxyBeanMethods = false)
    static class Application {
        @Bean
        Ledger ledger() {
            return new Ledger();
        }

        @Bean
        Batches batches() {
            return new Batches();
        }
    }

    private ApplicationContextRunner instance(String id) {
        return new ApplicationContextRunner().withConfiguration(BatonAutoConfigurationTest.ALL)
                .withUserConfiguration(Application.class, Nightly.class, BatchGate.class)
                .withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.session-timeout=4s",
                        "baton.connection-timeout=1s", "baton.wait-for-connection=10s",
                        "baton.leader.path=/services/billing/leader", "baton.leader.id=" + id);
    }

    private static boolean leads(AssertableApplicationContext c) {
        return c.getBean(BatonLeadership.class).isLeader();
    }

    @Test
    void theBooksAreClosedAndTheBatchesRunOnTheLeaderOnly() {
        instance("a").run(a -> {
            assertThat(a).hasNotFailed();
            await().atMost(Duration.ofSeconds(30)).until(() -> leads(a) && a.getBean(Batches.class).isRunning());
            instance("b").run(b -> {
                assertThat(b).hasNotFailed();
                assertThat(leads(b)).isFalse();
                assertThat(b.getBean(Batches.class).isRunning()).isFalse();

                a.getBean(Nightly.class).closeTheBooks();
                b.getBean(Nightly.class).closeTheBooks();
                assertThat(a.getBean(Ledger.class).entries)
                        .containsExactly("fenced at " + a.getBean(BatonLeadership.class).fencingToken().getAsLong(),
                                "day closed");
                assertThat(b.getBean(Ledger.class).entries).isEmpty();
            });
        });
    }

    @Test
    void thePropertiesAreTheStartersAndCarryNoTrailingComments() throws IOException {
        List<String> declared = new ArrayList<>();
        try (InputStream in = BatonProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the starter's generated metadata").isNotNull();
            Matcher name = Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"")
                    .matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            while (name.find()) {
                declared.add(name.group(1));
            }
        }
        assertThat(declared).contains("baton.connect-string", "baton.leader.path");
        List<String> readme = Files.readAllLines(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        int blocks = 0;
        for (int i = 0; i < readme.size(); i++) {
            if (readme.get(i).trim().equals("```properties")) {
                int end = i + 1;
                while (!readme.get(end).trim().equals("```")) {
                    end++;
                }
                Properties properties = new Properties();
                properties.load(new StringReader(String.join("\n", readme.subList(i + 1, end))));
                assertThat(properties).as("README.md:%d", i + 1).isNotEmpty();
                for (String key : properties.stringPropertyNames()) {
                    assertThat(key).as("README.md:%d", i + 1).isIn(declared);
                    assertThat(properties.getProperty(key)).as("README.md:%d %s (a # after a value is part of it)",
                            i + 1, key).doesNotContain("#");
                }
                blocks++;
                i = end;
            }
        }
        assertThat(blocks).isPositive();
    }
}

/** The README's ledger: what the books saw. */
class Ledger {
    final List<String> entries = new CopyOnWriteArrayList<>();

    void closeTheDay() {
        entries.add("day closed");
    }

    void fence(long token) {
        entries.add("fenced at " + token);
    }
}

/** The README's batches, which the gate resumes and pauses. */
class Batches {
    private final AtomicBoolean running = new AtomicBoolean();

    void resume() {
        running.set(true);
    }

    void pause() {
        running.set(false);
    }

    boolean isRunning() {
        return running.get();
    }
}

// README.md begin leader-only
@Component
class Nightly {
    private final Ledger ledger;

    Nightly(Ledger ledger) { this.ledger = ledger; }

    @LeaderOnly
    @Scheduled(cron = "0 0 2 * * *")
    void closeTheBooks() { ledger.closeTheDay(); }            // runs on the leader; skipped everywhere else

    @EventListener
    void onGranted(LeadershipGrantedEvent e) { ledger.fence(e.fencingToken()); }
}

@LeaderOnly
@Component
class BatchGate implements SmartLifecycle {   // started when leadership is granted, stopped when revoked
    private final Batches batches;

    BatchGate(Batches batches) { this.batches = batches; }

    public void start() { batches.resume(); }
    public void stop() { batches.pause(); }
    public boolean isRunning() { return batches.isRunning(); }
}
// README.md end leader-only
