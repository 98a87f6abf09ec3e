package dev.baton.recipes.shared;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonClient;
import dev.baton.recipes.TestResources;
import dev.baton.state.ConnectionState;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
@Tag("slow")
class SharedValueTest {
    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @RegisterExtension
    final TestResources resources = new TestResources(zk);

    private SharedValue value(BatonClient client, String path, String seed) {
        SharedValue value = new SharedValue(client, path, seed.getBytes(UTF_8));
        return resources.open(value);
    }

    /** Records what listeners hear. */
    private static final class Heard implements SharedValueListener {
        final List<String> values = new CopyOnWriteArrayList<>();
        final List<ConnectionState> states = new CopyOnWriteArrayList<>();

        @Override
        public void valueHasChanged(SharedValueReader sharedValue, byte[] newValue) {
            values.add(new String(newValue, UTF_8));
        }

        @Override
        public void stateChanged(BatonClient client, ConnectionState newState) {
            states.add(newState);
        }
    }

    private static String text(SharedValueReader value) {
        return new String(value.getValue(), UTF_8);
    }

    @Test
    void seedsOnceAndEveryInstanceFollowsTheValue() throws Exception {
        SharedValue first = value(resources.client(), "/values/a", "one");
        SharedValue second = value(resources.client(), "/values/a", "ignored");
        Heard heard = new Heard();
        second.getListenable().addListener(heard);
        first.start();
        second.start();
        assertThat(text(second)).isEqualTo("one"); // seeded by the first only

        first.setValue("two".getBytes(UTF_8));
        await().until(() -> text(second).equals("two"));
        VersionedValue<byte[]> seen = second.getVersionedValue();
        assertThat(seen.version()).isEqualTo(1);
        assertThat(second.trySetValue(seen, "three".getBytes(UTF_8))).isTrue();
        await().until(() -> text(first).equals("three"));
        // The value is set before the listeners hear of it (possibly on another thread): wait for them.
        await().untilAsserted(() -> assertThat(heard.values).containsExactly("two", "three"));

        second.setValueAsync(new byte[0]).get(10, TimeUnit.SECONDS);
        await().until(() -> first.getValue().length == 0);
        assertThat(first.trySetValueAsync(first.getVersionedValue(), "four".getBytes(UTF_8))
                .get(10, TimeUnit.SECONDS)).isTrue();
        await().until(() -> text(second).equals("four"));
    }

    @Test
    void trySetValueWithAStaleVersionOrOtherBytesFails() throws Exception {
        BatonClient client = resources.client();
        SharedValue value = value(client, "/values/stale", "a");
        value.start();
        VersionedValue<byte[]> old = value.getVersionedValue();
        value.setValue("b".getBytes(UTF_8));
        assertThat(value.trySetValue(old, "c".getBytes(UTF_8))).isFalse();
        // Right version, other contents: not what was read, so no write.
        VersionedValue<byte[]> forged = new VersionedValue<>(value.getVersionedValue().version(), "x".getBytes(UTF_8));
        assertThat(value.trySetValue(forged, "c".getBytes(UTF_8))).isFalse();
        // A process that has not heard of a change yet is refused by the server.
        client.setData().forPath("/values/stale", "d".getBytes(UTF_8));
        VersionedValue<byte[]> maybeStale = new VersionedValue<>(1, "b".getBytes(UTF_8));
        assertThat(value.trySetValue(maybeStale, "e".getBytes(UTF_8))).isFalse();
        await().until(() -> text(value).equals("d"));
        assertThat(client.getData().forPath("/values/stale")).isEqualTo("d".getBytes(UTF_8));
    }

    @Test
    void callersCannotChangeTheValueBehindItsBack() throws Exception {
        SharedValue value = value(resources.client(), "/values/copies", "abc");
        byte[] written = "xyz".getBytes(UTF_8);
        value.start();
        value.setValue(written);
        written[0] = 'Q';
        byte[] read = value.getValue();
        read[1] = 'Q';
        value.getVersionedValue().value()[2] = 'Q';
        assertThat(text(value)).isEqualTo("xyz");
    }

    @Test
    void followsDeletionAndRecreationAndTellsConnectionStates() throws Exception {
        SharedValue value = value(resources.client(), "/values/recreated", "five");
        Heard heard = new Heard();
        value.getListenable().addListener(heard);
        value.start();
        BatonClient other = resources.client();
        other.delete().forPath("/values/recreated");
        other.create().forPath("/values/recreated", "again".getBytes(UTF_8)); // version 0 again
        await().until(() -> text(value).equals("again"));
        // The value is set before the listeners hear of it: wait for them.
        await().untilAsserted(() -> assertThat(heard.values).containsExactly("again"));

        zk.server().stop();
        await().until(() -> heard.states.contains(ConnectionState.SUSPENDED));
        zk.server().restart();
        await().atMost(Duration.ofSeconds(20)).until(() -> heard.states.contains(ConnectionState.RECONNECTED));
        other.setData().forPath("/values/recreated", "later".getBytes(UTF_8));
        await().until(() -> text(value).equals("later"));
    }

    @Test
    void keepsFollowingAfterItsSessionExpires() throws Exception {
        BatonClient client = resources.client();
        SharedValue value = value(client, "/values/expired", "before");
        Heard heard = new Heard();
        value.getListenable().addListener(heard);
        value.start();
        BatonClient other = resources.client();
        zk.server().expireSession(client.getZooKeeper());
        await().atMost(Duration.ofSeconds(20)).until(() -> heard.states.contains(ConnectionState.RECONNECTED));
        other.setData().forPath("/values/expired", "after".getBytes(UTF_8));
        await().until(() -> text(value).equals("after"));
        await().untilAsserted(() -> assertThat(heard.values).containsExactly("after"));
    }

    @Test
    void closeLeavesNoWatchAndNoListener() throws Exception {
        BatonClient client = resources.untrackedClient(); // counts the server's watches
        int before = zk.server().watchCount();
        SharedValue value = value(client, "/values/closed", "v");
        Heard heard = new Heard();
        value.getListenable().addListener(heard);
        value.start();
        assertThat(zk.server().watchCount()).isGreaterThan(before);
        value.close();
        assertThat(zk.server().watchCount()).isEqualTo(before); // removed from the server by close()
        client.setData().forPath("/values/closed", "w".getBytes(UTF_8));
        assertThat(zk.server().watchCount()).isEqualTo(before);
        assertThat(heard.values).isEmpty();
    }

    @Test
    void lifecycleAndBadArguments() throws Exception {
        BatonClient client = resources.client();
        assertThatThrownBy(() -> new SharedValue(null, "/v", new byte[0])).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new SharedValue(client, null, new byte[0])).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("path");
        assertThatThrownBy(() -> new SharedValue(client, "/v", null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("seedValue");
        assertThatThrownBy(() -> new SharedValue(client, "v", new byte[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("v");
        SharedValue value = value(client, "/values/life", "");
        assertThatThrownBy(value::getValue).isInstanceOf(IllegalStateException.class).hasMessageContaining("LATENT");
        assertThatThrownBy(() -> value.setValue(new byte[1])).isInstanceOf(IllegalStateException.class);
        value.start();
        assertThatThrownBy(value::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> value.setValue(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("newValue");
        assertThatThrownBy(() -> value.trySetValue(null, new byte[0])).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("previous");
        assertThatThrownBy(() -> value.trySetValue(value.getVersionedValue(), null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("newValue");
        value.close();
        value.close();
        assertThatThrownBy(value::getValue).isInstanceOf(IllegalStateException.class).hasMessageContaining("CLOSED");
        assertThatThrownBy(value::start).isInstanceOf(IllegalStateException.class);
    }
}
