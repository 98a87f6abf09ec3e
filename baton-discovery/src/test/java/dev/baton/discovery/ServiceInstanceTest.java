package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** ServiceInstance, its builder and UriSpec: defaults, validation, URIs. */
@Timeout(30)
class ServiceInstanceTest {

    @Test
    void builderDefaults() {
        long before = System.currentTimeMillis();
        ServiceInstance<String> instance = ServiceInstance.<String>builder().name("orders").build();
        assertThat(UUID.fromString(instance.getId())).isNotNull();
        assertThat(instance.getAddress()).isNotBlank();
        assertThat(instance.getServiceType()).isEqualTo(ServiceType.DYNAMIC);
        assertThat(instance.isEnabled()).isTrue();
        assertThat(instance.getPort()).isNull();
        assertThat(instance.getSslPort()).isNull();
        assertThat(instance.getPayload()).isNull();
        assertThat(instance.getUriSpec()).isNull();
        assertThat(instance.getRegistrationTimeUTC()).isBetween(before, System.currentTimeMillis());
        assertThat(instance.buildUriSpec()).isEmpty();
        assertThat(ServiceInstance.builder().name("a").build().getId())
                .isNotEqualTo(ServiceInstance.builder().name("a").build().getId());
    }

    @Test
    void badInputFailsAtTheCall() {
        ServiceInstance.Builder<String> builder = ServiceInstance.builder();
        assertThatThrownBy(() -> builder.name(null)).isInstanceOf(NullPointerException.class).hasMessage("name");
        assertThatThrownBy(() -> builder.name("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> builder.name("a/b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name").hasMessageContaining("a/b");
        assertThatThrownBy(() -> builder.name("..")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.id("x\u0001")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("id");
        assertThatThrownBy(() -> builder.id(null)).isInstanceOf(NullPointerException.class).hasMessage("id");
        assertThatThrownBy(() -> builder.port(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port").hasMessageContaining("0");
        assertThatThrownBy(() -> builder.port(65_536)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("65536");
        assertThatThrownBy(() -> builder.sslPort(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sslPort");
        assertThatThrownBy(() -> builder.address(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("address");
        assertThatThrownBy(() -> builder.serviceType(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("serviceType");
        assertThatThrownBy(() -> builder.uriSpec(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("uriSpec");
        assertThatThrownBy(builder::build).as("no name").isInstanceOf(NullPointerException.class)
                .hasMessage("name");
    }

    @Test
    void equalityCoversEveryFieldAndToBuilderCopies() {
        ServiceInstance<String> a = ServiceInstance.<String>builder().name("s").id("1").address("h").port(1)
                .payload("p").registrationTimeUTC(9).build();
        assertThat(a.toBuilder().build()).isEqualTo(a).hasSameHashCodeAs(a);
        assertThat(a.toBuilder().enabled(false).build()).isNotEqualTo(a);
        assertThat(a.toBuilder().payload("q").build()).isNotEqualTo(a);
        assertThat(a.toBuilder().port(2).build()).isNotEqualTo(a);
        assertThat(a.toString()).contains("s", "1", "h");
    }

    @Test
    void uriSpecFillsCuratorsVariables() {
        ServiceInstance<Void> plain = ServiceInstance.<Void>builder().name("web").id("w1").address("10.1.2.3")
                .port(80).uriSpec(new UriSpec("{scheme}://{address}:{port}/{name}/{id}?t={service-type}{[}x{]}"))
                .build();
        assertThat(plain.buildUriSpec()).isEqualTo("http://10.1.2.3:80/web/w1?t=dynamic{x}");
        ServiceInstance<Void> tls = plain.toBuilder().sslPort(443)
                .uriSpec(new UriSpec("{scheme}://{address}:{ssl-port}{path}")).build();
        assertThat(tls.buildUriSpec()).isEqualTo("https://10.1.2.3:443");
        assertThat(tls.buildUriSpec(Map.of("path", "/v1", "scheme", "wss"))).isEqualTo("wss://10.1.2.3:443/v1");
        assertThat(new UriSpec("{ scheme }://fixed").build()).isEqualTo("http://fixed");
        assertThat(new UriSpec("{scheme}://{address}").getParts()).containsExactly(
                new UriSpec.Part("scheme", true), new UriSpec.Part("://", false), new UriSpec.Part("address", true));
        assertThat(new UriSpec("a{b}c")).isEqualTo(new UriSpec(List.of(new UriSpec.Part("a", false),
                new UriSpec.Part("b", true), new UriSpec.Part("c", false))));
        assertThat(new UriSpec("a{b}c").toString()).isEqualTo("a{b}c");
    }

    @Test
    void uriSpecRejectsUnbalancedBraces() {
        assertThatThrownBy(() -> new UriSpec("{a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{a");
        assertThatThrownBy(() -> new UriSpec("a}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new UriSpec("{a{b}}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new UriSpec((String) null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void downInstancePolicyChecksItsArguments() {
        assertThat(new DownInstancePolicy()).isEqualTo(new DownInstancePolicy(java.time.Duration.ofSeconds(30), 2));
        assertThatThrownBy(() -> new DownInstancePolicy(null, 1)).isInstanceOf(NullPointerException.class)
                .hasMessage("timeout");
        assertThatThrownBy(() -> new DownInstancePolicy(java.time.Duration.ofSeconds(-1), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> new DownInstancePolicy(java.time.Duration.ofSeconds(1), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("errorThreshold");
    }
}
