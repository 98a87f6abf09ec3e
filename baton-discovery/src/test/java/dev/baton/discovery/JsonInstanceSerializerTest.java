package dev.baton.discovery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The JSON of an instance is Curator's, byte for byte: each side's serializer reads what the other wrote, and
 * Baton writes the same bytes as Curator's serializer for the same instance.
 */
@Timeout(30)
class JsonInstanceSerializerTest {
    private static final UriSpec SPEC = new UriSpec("{scheme}://{address}:{port}/orders");

    private static ServiceInstance<Details> baton(Details payload) {
        return ServiceInstance.<Details>builder().name("orders").id("i-1").address("10.0.0.7").port(8080)
                .sslPort(8443).payload(payload).registrationTimeUTC(1_718_000_000_000L)
                .serviceType(ServiceType.STATIC).uriSpec(SPEC).enabled(false).build();
    }

    private static org.apache.curator.x.discovery.ServiceInstance<Details> curator(Details payload) {
        return new org.apache.curator.x.discovery.ServiceInstance<>("orders", "i-1", "10.0.0.7", 8080, 8443, payload,
                1_718_000_000_000L, org.apache.curator.x.discovery.ServiceType.STATIC,
                new org.apache.curator.x.discovery.UriSpec("{scheme}://{address}:{port}/orders"), false);
    }

    @Test
    void writesTheBytesCuratorWrites() throws Exception {
        Details payload = new Details("eu-west", 3);
        byte[] ours = new JsonInstanceSerializer<>(Details.class).serialize(baton(payload));
        byte[] theirs = new org.apache.curator.x.discovery.details.JsonInstanceSerializer<>(Details.class, false)
                .serialize(curator(payload));
        assertThat(new String(ours, UTF_8)).isEqualTo(new String(theirs, UTF_8));

        // Compatible mode leaves out "enabled", as Curator's default serializer does.
        byte[] oursCompatible = new JsonInstanceSerializer<>(Details.class, true).serialize(baton(payload));
        byte[] theirsDefault = new org.apache.curator.x.discovery.details.JsonInstanceSerializer<>(Details.class)
                .serialize(curator(payload));
        assertThat(new String(oursCompatible, UTF_8)).isEqualTo(new String(theirsDefault, UTF_8))
                .doesNotContain("enabled");
    }

    @Test
    void writesNullsAndOtherPayloadsAsCuratorDoes() throws Exception {
        for (Object payload : new Object[] {null, "text", 42, 42L, 1.5, true, List.of("a", "b"),
                new LinkedHashMap<>(Map.of("k", "v"))}) {
            ServiceInstance<Object> ours = ServiceInstance.builder().name("s").id("x").address("h").port(1)
                    .payload(payload).registrationTimeUTC(5).build();
            org.apache.curator.x.discovery.ServiceInstance<Object> theirs =
                    new org.apache.curator.x.discovery.ServiceInstance<>("s", "x", "h", 1, null, payload, 5,
                            org.apache.curator.x.discovery.ServiceType.DYNAMIC, null, true);
            assertThat(new String(new JsonInstanceSerializer<>(Object.class).serialize(ours), UTF_8))
                    .as("payload %s", payload)
                    .isEqualTo(new String(new org.apache.curator.x.discovery.details.JsonInstanceSerializer<>(
                            Object.class, false).serialize(theirs), UTF_8));
        }
    }

    @Test
    void readsWhatCuratorWrote() throws Exception {
        Details payload = new Details("us-east", 7);
        byte[] theirs = new org.apache.curator.x.discovery.details.JsonInstanceSerializer<>(Details.class, false)
                .serialize(curator(payload));
        ServiceInstance<Details> read = new JsonInstanceSerializer<>(Details.class).deserialize(theirs);
        assertThat(read).isEqualTo(baton(payload));
        assertThat(read.buildUriSpec()).isEqualTo("https://10.0.0.7:8080/orders");

        // And Curator reads what Baton wrote, field for field.
        byte[] ours = new JsonInstanceSerializer<>(Details.class).serialize(baton(payload));
        org.apache.curator.x.discovery.ServiceInstance<Details> back =
                new org.apache.curator.x.discovery.details.JsonInstanceSerializer<>(Details.class).deserialize(ours);
        assertThat(back).isEqualTo(curator(payload));
    }

    @Test
    void readsCuratorsDefaultJsonWithoutEnabledAsEnabled() throws Exception {
        byte[] theirs = new org.apache.curator.x.discovery.details.JsonInstanceSerializer<>(Details.class)
                .serialize(curator(null));
        assertThat(new String(theirs, UTF_8)).doesNotContain("enabled");
        assertThat(new JsonInstanceSerializer<>(Details.class).deserialize(theirs).isEnabled()).isTrue();
    }

    @Test
    void ignoresUnknownFieldsAndTakesDefaultsForMissingOnes() {
        String json = "{\"name\":\"orders\",\"id\":\"a\",\"port\":80,\"future\":{\"x\":[1,2]},"
                + "\"payload\":{\"@class\":\"dev.baton.discovery.Details\",\"region\":\"r\",\"weight\":1,\"extra\":3}}";
        ServiceInstance<Details> read = new JsonInstanceSerializer<>(Details.class).deserialize(json.getBytes(UTF_8));
        assertThat(read.getName()).isEqualTo("orders");
        assertThat(read.getPort()).isEqualTo(80);
        assertThat(read.getSslPort()).isNull();
        assertThat(read.getAddress()).isNull();
        assertThat(read.getServiceType()).isEqualTo(ServiceType.DYNAMIC);
        assertThat(read.isEnabled()).isTrue();
        assertThat(read.getUriSpec()).isNull();
        assertThat(read.getPayload()).isEqualTo(new Details("r", 1));
    }

    @Test
    void readsThePayloadAsThePayloadClassNotAsTheClassTheDataNames() {
        // A registration cannot make the reader load a class of the writer's choosing.
        String json = "{\"name\":\"s\",\"id\":\"a\",\"payload\":{\"@class\":\"java.lang.ProcessBuilder\","
                + "\"region\":\"r\",\"weight\":2}}";
        assertThat(new JsonInstanceSerializer<>(Details.class).deserialize(json.getBytes(UTF_8)).getPayload())
                .isEqualTo(new Details("r", 2));
        // A subclass of the payload class is honoured.
        String sub = json.replace("java.lang.ProcessBuilder", SpecialDetails.class.getName());
        assertThat(new JsonInstanceSerializer<>(Details.class).deserialize(sub.getBytes(UTF_8)).getPayload())
                .isInstanceOf(SpecialDetails.class);
        // With Object as payload class an object payload reads as a map.
        assertThat(new JsonInstanceSerializer<>(Object.class).deserialize(json.getBytes(UTF_8)).getPayload())
                .isEqualTo(Map.of("region", "r", "weight", 2));
    }

    @Test
    void failsClearlyOnDataThatIsNotAnInstance() {
        JsonInstanceSerializer<Details> serializer = new JsonInstanceSerializer<>(Details.class);
        assertThatThrownBy(() -> serializer.deserialize("not json".getBytes(UTF_8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> serializer.deserialize("[1]".getBytes(UTF_8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a JSON object");
        assertThatThrownBy(() -> serializer.deserialize(
                "{\"name\":\"s\",\"id\":\"a\",\"payload\":{\"region\":[1]}}".getBytes(UTF_8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload");
        assertThatThrownBy(() -> serializer.deserialize(
                "{\"name\":\"s\",\"id\":\"a\",\"serviceType\":\"ODD\"}".getBytes(UTF_8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("serviceType");
        assertThatThrownBy(() -> new JsonInstanceSerializer<>(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("payloadClass");
    }

    /** A payload subclass. */
    public static class SpecialDetails extends Details {
    }
}
