package dev.baton.cli;

import static dev.baton.cli.Cli.baton;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonClient;
import dev.baton.discovery.ServiceDiscovery;
import dev.baton.discovery.ServiceDiscoveryBuilder;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.UriSpec;
import dev.baton.retry.RetryOneTime;
import dev.baton.testing.EmbeddedZooKeeperExtension;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code baton demo discovery} and the decoding of registrations by {@code baton inspect}. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Tag("slow")
class DiscoveryCliTest {

    @RegisterExtension
    static EmbeddedZooKeeperExtension zk = new EmbeddedZooKeeperExtension();

    @Test
    void discoveryDemoStopsCutsOffAndBringsBack() {
        Cli.Result result = baton("demo", "discovery", "--speed", "20");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        List<String> lines = result.outLines();
        int all = find(lines, "round robin: orders-1 orders-2 orders-3 orders-1 orders-2 orders-3");
        int stopped = find(lines, "round robin: orders-2 orders-3 orders-2 orders-3");
        int cut = find(lines, "round robin: orders-2 orders-2 orders-2");
        int back = find(lines, "orders-3 is registered with {");
        assertThat(List.of(all, stopped, cut, back)).as(result.toString()).allMatch(i -> i >= 0).isSorted();
        assertThat(lines.get(back)).contains("version=1.1");
        assertThat(Demos.find("discovery")).isPresent();
    }

    @Test
    void inspectDecodesRegistrations() throws Exception {
        try (BatonClient client = Baton.newClient(zk.connectString(), new RetryOneTime(100))) {
            client.start();
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            try (ServiceDiscovery<Object> discovery = ServiceDiscoveryBuilder.builder(Object.class).client(client)
                    .basePath("/services").build()) {
                discovery.start();
                discovery.registerService(ServiceInstance.builder().name("orders").id("o1").address("10.0.0.7")
                        .port(8080).uriSpec(new UriSpec("{scheme}://{address}:{port}"))
                        .payload(Map.of("zone", "a")).build());
                discovery.registerService(ServiceInstance.builder().name("orders").id("o2").address("10.0.0.8")
                        .port(8080).enabled(false).build());

                Cli.Result result = baton("inspect", "/services", "--recursive", "--connect", zk.connectString());

                assertThat(result.exitCode()).as(result.toString()).isZero();
                assertThat(result.out()).contains(
                        "instance orders/o1 at 10.0.0.7:8080 DYNAMIC enabled uri http://10.0.0.7:8080 payload {zone=a}",
                        "instance orders/o2 at 10.0.0.8:8080 DYNAMIC DISABLED",
                        "[service orders: 2 instances, 1 enabled]");

                Cli.Result json = baton("inspect", "/services/orders", "--json", "--connect", zk.connectString());
                assertThat(json.exitCode()).as(json.toString()).isZero();
                assertThat(json.out()).contains("\"type\": \"discovery-service\"", "\"id\": \"o1\"",
                        "\"uri\": \"http://10.0.0.7:8080\"", "\"enabled\": false");
            }
        }
    }

    private static int find(List<String> lines, String text) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i;
            }
        }
        return -1;
    }
}
